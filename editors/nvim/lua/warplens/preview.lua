-- warplens.previewRewrite: a verified rewrite is shown as a diff before it
-- changes anything. The server's code action carries the proposed LSP
-- WorkspaceEdit as the command argument {title, edit, summary?}; this opens
-- a tab with the current buffer beside a scratch copy with the edit applied
-- (:diffthis on both) and applies the edit only when the user picks "Apply".
-- An edit made for an older buffer version is refused, never forced.
local M = {}

local function notify(msg, level)
  vim.notify('warplens: ' .. msg, level or vim.log.levels.INFO)
end

-- { {uri, version|nil, edits}, ... } from either form of WorkspaceEdit.
local function text_document_edits(edit)
  local out = {}
  if edit.documentChanges then
    for _, change in ipairs(edit.documentChanges) do
      if change.textDocument and change.edits then
        table.insert(out, { uri = change.textDocument.uri, version = change.textDocument.version, edits = change.edits })
      else
        return nil, 'file create/rename/delete operations are not previewed'
      end
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    table.insert(out, { uri = uri, edits = edits })
  end
  return out
end

local function stale(change, bufnr)
  local version = change.version
  if version == nil or version == vim.NIL then return false end
  local current = vim.lsp.util.buf_versions[bufnr]
  return current ~= nil and current ~= version
end

function M.show(client, args)
  if type(args) ~= 'table' or type(args.edit) ~= 'table' then
    notify('the rewrite to preview carries no edit', vim.log.levels.ERROR)
    return
  end
  local changes, why = text_document_edits(args.edit)
  if not changes then
    notify(why, vim.log.levels.ERROR)
    return
  end
  if #changes == 0 then
    notify('"' .. tostring(args.title) .. '" changes nothing')
    return
  end
  local encoding = client.offset_encoding or 'utf-16'
  for _, change in ipairs(changes) do
    local bufnr = vim.uri_to_bufnr(change.uri)
    vim.fn.bufload(bufnr)
    if stale(change, bufnr) then
      notify('the file changed since this rewrite was verified; run the optimization again', vim.log.levels.WARN)
      return
    end
    local proposed = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(proposed, 0, -1, false, vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
    vim.lsp.util.apply_text_edits(change.edits, proposed, encoding)
    -- syntax, not filetype: a FileType event would attach language servers to the scratch copy
    vim.bo[proposed].syntax = vim.bo[bufnr].filetype
    vim.bo[proposed].modifiable = false
    pcall(vim.api.nvim_buf_set_name, proposed, 'warplens-proposed://' .. vim.uri_to_fname(change.uri))
    vim.cmd('tab split')
    vim.api.nvim_win_set_buf(0, bufnr)
    vim.cmd('diffthis')
    vim.cmd('rightbelow vsplit') -- original left, proposal right
    vim.api.nvim_win_set_buf(0, proposed)
    vim.cmd('diffthis')
  end
  local prompt = 'warplens: apply "' .. tostring(args.title) .. '"?'
  if type(args.summary) == 'string' and args.summary ~= '' then prompt = prompt .. ' (' .. args.summary .. ')' end
  vim.ui.select({ 'Apply', 'Discard' }, { prompt = prompt }, function(choice)
    vim.cmd('diffoff!')
    vim.cmd('tabclose')
    if choice ~= 'Apply' then return end
    for _, change in ipairs(changes) do
      if stale(change, vim.uri_to_bufnr(change.uri)) then
        notify('the file changed during the preview; nothing applied', vim.log.levels.WARN)
        return
      end
    end
    vim.lsp.util.apply_workspace_edit(args.edit, encoding)
    notify('applied "' .. tostring(args.title) .. '"')
  end)
end

-- The vim.lsp.commands handler: (command, ctx) with command.arguments = { args }.
function M.command(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then return end
  M.show(client, (command.arguments or {})[1])
end

return M
