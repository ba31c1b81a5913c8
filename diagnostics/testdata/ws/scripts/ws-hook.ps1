Write-Output hook
