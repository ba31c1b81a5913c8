-- Tiny assertions that say what they compared.
local A = {}

function A.eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(('%s: want %s, got %s'):format(what or 'value', vim.inspect(want), vim.inspect(got)), 2)
  end
end

function A.truthy(v, what)
  if not v then
    error((what or 'condition') .. ' is false', 2)
  end
  return v
end

function A.contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    error(('%s: %s does not contain %s'):format(what or 'text', vim.inspect(haystack), vim.inspect(needle)), 2)
  end
end

--- Waits for cond() to return a non-nil, non-false value; errors after timeout_ms.
function A.wait_for(what, timeout_ms, cond, context)
  local value
  local done = vim.wait(timeout_ms, function()
    value = cond()
    return value ~= nil and value ~= false
  end, 20)
  if not done then
    error(('gave up waiting for %s%s'):format(what, context and (': ' .. context()) or ''), 2)
  end
  return value
end

return A
