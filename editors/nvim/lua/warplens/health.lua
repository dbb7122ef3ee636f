-- :checkhealth warplens: the Neovim version, the server binary (runs
-- `warplens --version`), a running client and its state (toolkit, GPU), the
-- configured settings against the schema (server/settings_schema.json, via
-- the generated schema.lua), and clangd next to warplens (clangDiagnostics).
local M = {}

-- vim.health.start/ok/... (0.10+), vim.health.report_* (0.8-0.9), or the
-- `health` module (0.7).
local h = (function()
  local vh = vim.health
  if vh and vh.start then return vh end
  local legacy = (vh and vh.report_start) and vh or require('health')
  return {
    start = legacy.report_start, ok = legacy.report_ok, info = legacy.report_info,
    warn = legacy.report_warn, error = legacy.report_error,
  }
end)()

local function type_ok(value, types)
  local lua_types = {
    string = 'string', number = 'number', integer = 'number', boolean = 'boolean', array = 'table', object = 'table',
  }
  for _, t in ipairs(types) do
    if t == 'null' and value == vim.NIL then return true end
    if lua_types[t] == type(value) and (t ~= 'integer' or math.floor(value) == value) then return true end
  end
  return false
end

local function lookup(settings, key)
  local at = settings
  for part in key:gmatch('[^.]+') do
    if type(at) ~= 'table' then return nil end
    at = at[part]
  end
  return at
end

-- Problems in `settings` (the table passed to setup), one message each.
function M.settings_problems(settings)
  local problems = {}
  local schema = require('warplens.schema')
  local known = {}
  for _, e in ipairs(schema) do
    if e.side == 'server' then
      known[e.key] = e
      local value = lookup(settings, e.key)
      if value ~= nil then
        if not type_ok(value, e.types) then
          table.insert(problems, string.format('settings.%s: expected %s, got %s', e.key, table.concat(e.types, ' or '),
            vim.inspect(value)))
        elseif e.enum and not vim.tbl_contains(e.enum, value) then
          table.insert(problems, string.format('settings.%s: expected one of %s', e.key, table.concat(e.enum, ', ')))
        elseif type(value) == 'number' and ((e.minimum and value < e.minimum) or (e.maximum and value > e.maximum)) then
          table.insert(problems, string.format('settings.%s: %s is outside %s..%s', e.key, value, e.minimum or '', e.maximum or ''))
        end
      end
    end
  end
  -- Keys that are no setting (typos): walk the table.
  local function walk(t, prefix)
    for k, v in pairs(t) do
      local key = prefix == '' and k or (prefix .. '.' .. k)
      if not known[key] then
        local group = false
        for name in pairs(known) do group = group or name:sub(1, #key + 1) == key .. '.' end
        if group and type(v) == 'table' then walk(v, key)
        elseif key ~= 'serverPath' and key ~= 'arguments' then table.insert(problems, 'settings.' .. key .. ': unknown setting') end
      end
    end
  end
  if type(settings) == 'table' then walk(settings, '') end
  return problems
end

function M.check()
  local w = require('warplens')
  h.start('warplens')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then h.ok('Neovim ' .. version) else h.error('Neovim ' .. version .. ': warplens needs 0.7 or newer') end
  if vim.fn.has('nvim-0.11') == 1 then
    h.info('Neovim 0.11+: vim.lsp.enable("warplens") uses lsp/warplens.lua from this plugin')
  end

  local cmd = (w.config and w.config.cmd) or { 'warplens' }
  local exe = cmd[1]
  if vim.fn.executable(exe) == 1 then
    local out = vim.fn.system({ exe, '--version' })
    if vim.v.shell_error == 0 then
      h.ok('server: ' .. vim.fn.exepath(exe) .. ' (' .. vim.trim(out):gsub('\n', ' ') .. ')')
    else
      h.error('server: `' .. exe .. ' --version` failed: ' .. vim.trim(out))
    end
  else
    h.error('server not found: ' .. exe, { 'build it (build/bin/warplens) and pass cmd = { "/path/to/warplens" } to setup' })
  end

  local problems = M.settings_problems(w.config and w.config.settings or {})
  if #problems == 0 then h.ok('settings match the schema') else for _, p in ipairs(problems) do h.warn(p) end end

  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ name = 'warplens' }) or vim.tbl_filter(function(c)
    return c.name == 'warplens'
  end, vim.lsp.get_active_clients())
  if #clients == 0 then
    h.info('no warplens client running (open a .cu file)')
  end
  for _, c in ipairs(clients) do
    local s = w.status[c.id]
    if not s then
      h.warn(string.format('client %d: no warplens/status yet (pass handlers = require("warplens").handlers when ' ..
        'starting it elsewhere)', c.id))
    else
      local gpu = type(s.gpu) == 'table' and s.gpu.name or s.gpu
      h.ok(string.format('client %d (root %s): %s · %s · %s', c.id, tostring(c.config.root_dir), tostring(s.state),
        (s.cudaFound and not s.degraded) and ('CUDA ' .. tostring(s.cudaVersion or '?')) or 'no CUDA toolkit',
        (type(gpu) == 'string' and gpu ~= '') and ('GPU ' .. gpu) or 'no GPU'))
      if s.degraded or not s.cudaFound then
        h.warn('no CUDA toolkit found: registers and occupancy are unavailable', { 'set settings.cudaPath or CUDA_PATH' })
      end
      if not s.gpu or s.gpu == vim.NIL then h.info('no GPU: :WarplensProfile and :WarplensOptimize need one') end
    end
  end

  local setting = (w.config and w.config.settings or {}).clangDiagnostics or 'auto'
  if w.clangd_attached() then
    if setting == 'on' then
      h.warn('clangd is attached and clangDiagnostics is "on": Clang errors are shown twice',
        { 'use clangDiagnostics = "auto" (the default) or "off"' })
    else
      h.ok('clangd is attached: warplens leaves Clang\'s own errors to it (clangDiagnostics ' .. setting .. ')')
    end
  else
    h.ok('clangDiagnostics ' .. setting .. (setting == 'auto' and ' (on: no clangd attached)' or ''))
  end
end

return M
