-- warplens for Neovim 0.11+'s vim.lsp.config / vim.lsp.enable:
--
--   vim.lsp.enable('warplens')                        -- this plugin on 'runtimepath'
--   vim.lsp.config('warplens', { settings = { warplens = { arch = 'sm_80' } } })  -- optional overrides
--
-- The plugin's commands (:WarplensReport, :WarplensOptimize, ...), progress
-- display, code-lens refresh and clangDiagnostics 'auto' come with the first
-- attach; require('warplens').setup{} is not needed (call it with
-- `autostart = false` to configure the commands' behaviour, or not at all).
-- Settings go in `settings.warplens` here; with setup{} they are `settings`.
---@type vim.lsp.Config
return {
  cmd = { 'warplens' },
  filetypes = { 'cuda' },
  root_markers = { 'compile_commands.json', '.git' },
  init_options = { warplens = vim.empty_dict() },
  settings = { warplens = vim.empty_dict() },
  handlers = {
    ['warplens/status'] = function(...) return require('warplens').handlers['warplens/status'](...) end,
  },
  -- 0.11's vim.lsp.buf.hover() takes its float size as an argument, e.g.
  -- vim.keymap.set('n', 'K', function() vim.lsp.buf.hover({ max_height = 25 }) end)
  on_attach = function(client, bufnr)
    local warplens = require('warplens')
    warplens.ensure_commands()
    -- Settings given through vim.lsp.config are the ones the plugin resolves
    -- clangDiagnostics 'auto' in.
    local configured = client.config.settings and client.config.settings.warplens
    if type(configured) == 'table' and next(warplens.config.settings) == nil then
      warplens.config.settings = vim.deepcopy(configured)
    end
    warplens.on_attach(client, bufnr)
  end,
}
