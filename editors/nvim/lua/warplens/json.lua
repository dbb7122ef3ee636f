-- A small JSON pretty-printer for the kernel report (vim.json.encode and
-- json_encode only produce one line). Keys are sorted for stable output.
local M = {}

local function encode_scalar(v)
  if v == nil or v == vim.NIL then return 'null' end
  return vim.fn.json_encode(v)
end

local function is_array(t)
  if vim.tbl_islist then return vim.tbl_islist(t) end
  return vim.islist(t)
end

local function pretty(v, indent)
  if type(v) ~= 'table' then return encode_scalar(v) end
  local pad, inner = string.rep('  ', indent), string.rep('  ', indent + 1)
  if next(v) == nil then return is_array(v) and '[]' or '{}' end
  local out = {}
  if is_array(v) then
    for _, item in ipairs(v) do table.insert(out, inner .. pretty(item, indent + 1)) end
    return '[\n' .. table.concat(out, ',\n') .. '\n' .. pad .. ']'
  end
  local keys = vim.tbl_keys(v)
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    table.insert(out, inner .. vim.fn.json_encode(tostring(k)) .. ': ' .. pretty(v[k], indent + 1))
  end
  return '{\n' .. table.concat(out, ',\n') .. '\n' .. pad .. '}'
end

function M.pretty(value)
  return pretty(value, 0)
end

return M
