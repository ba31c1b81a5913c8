-- Hover for Neovim before 0.10, whose Markdown float (stylize_markdown) shows
-- pipe tables and link targets as raw text: the server's hover (a rule's
-- consumers as a table, a documentation link) becomes plain Markdown lines
-- that render on 0.7: a table becomes a list, a link its text and address.
local M = {}

local function cells(line)
  local inner = line:match('^%s*|(.*)|%s*$')
  if inner == nil then
    return nil
  end
  local out = {}
  for c in (inner .. '|'):gmatch('([^|]*)|') do
    table.insert(out, vim.trim(c))
  end
  return out
end

local function is_separator(c)
  for _, x in ipairs(c) do
    if not x:match('^:?%-+:?$') then
      return false
    end
  end
  return #c > 0
end

--- Markdown -> lines with tables as lists ("- first: rest · rest") and
--- links as "text <address>". Code fences are left alone.
---@param text string
---@return string[]
function M.plain_lines(text)
  local lines = vim.split(text or '', '\n', { plain = true })
  local out = {}
  local fence = false
  local i = 1
  while i <= #lines do
    local line = lines[i]
    if line:match('^%s*```') or line:match('^%s*~~~') then
      fence = not fence
      table.insert(out, line)
      i = i + 1
    elseif fence then
      table.insert(out, line)
      i = i + 1
    else
      local head = cells(line)
      local sep = head and lines[i + 1] and cells(lines[i + 1])
      if head and sep and is_separator(sep) then
        -- The header row names the columns; the list says them per row.
        i = i + 2
        while i <= #lines do
          local row = cells(lines[i])
          if row == nil then
            break
          end
          local rest = {}
          for k = 2, #row do
            if row[k] ~= '' then
              table.insert(rest, row[k])
            end
          end
          table.insert(out, ('- %s%s'):format(row[1], #rest > 0 and (': ' .. table.concat(rest, ' · ')) or ''))
          i = i + 1
        end
      else
        line = line:gsub('%[([^%]]+)%]%(([^%)%s]+)%)', '%1 <%2>')
        table.insert(out, line)
        i = i + 1
      end
    end
  end
  return out
end

--- The contents of a Hover result as one Markdown string.
local function markdown_of(contents)
  if type(contents) == 'string' then
    return contents
  end
  if type(contents) ~= 'table' then
    return ''
  end
  if contents.value ~= nil then
    if contents.language ~= nil then
      return ('```%s\n%s\n```'):format(contents.language, contents.value)
    end
    return tostring(contents.value)
  end
  local parts = {}
  for _, c in ipairs(contents) do
    table.insert(parts, markdown_of(c))
  end
  return table.concat(parts, '\n\n')
end
M.markdown_of = markdown_of

--- A textDocument/hover handler (0.7–0.9 signature) showing plain_lines.
function M.handler(_, result, ctx, config)
  config = config or {}
  config.focus_id = ctx and ctx.method or 'textDocument/hover'
  if result == nil or result.contents == nil then
    if not config.silent then
      vim.notify('No information available')
    end
    return
  end
  local lines = M.plain_lines(markdown_of(result.contents))
  while #lines > 0 and vim.trim(lines[#lines]) == '' do
    table.remove(lines)
  end
  if #lines == 0 then
    if not config.silent then
      vim.notify('No information available')
    end
    return
  end
  return vim.lsp.util.open_floating_preview(lines, 'markdown', config)
end

return M
