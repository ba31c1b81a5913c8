module example.com/toolexecfixture

go 1.22
