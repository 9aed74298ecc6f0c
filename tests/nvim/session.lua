-- One editing session in headless neovim (0.7+), driving `railrules lsp` as a person would:
-- open a rules file, break it and read the diagnostics, hover a YAML constant, jump to a
-- field's YAML definition, rename a def. What it sees goes to a JSON file for pytest to check.
-- The parameters (paths, positions from 0) come from the JSON file named by $RAILRULES_NVIM.
local spec = vim.fn.json_decode(vim.fn.readfile(vim.env.RAILRULES_NVIM))
local seen = {}

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(seen) }, spec.out)
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(spec.file))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({ name = "railrules", cmd = spec.cmd, root_dir = spec.root })
  vim.lsp.buf_attach_client(buf, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  seen.started = vim.wait(60000, function() return client.initialized end, 50)

  -- the clean file first: its diagnostics (none), then a misspelt name on one line
  local line = vim.api.nvim_buf_get_lines(buf, spec.broken_line, spec.broken_line + 1, false)[1]
  vim.api.nvim_buf_set_lines(buf, spec.broken_line, spec.broken_line + 1, false,
    { (line:gsub(spec.old, spec.new, 1)) })
  seen.got_diagnostics = vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  seen.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(seen.diagnostics, { lnum = d.lnum, col = d.col, code = d.code, message = d.message })
  end
  vim.api.nvim_buf_set_lines(buf, spec.broken_line, spec.broken_line + 1, false, { line })
  -- as a person would, wait for the error to go (the rules load again: the server's symbols are
  -- those of the last good load, and the file was broken before it ever loaded here)
  seen.cleared = vim.wait(60000, function() return #vim.diagnostic.get(buf) == 0 end, 50)

  -- hover the YAML constant
  local hover = client.request_sync("textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) }, position = spec.constant }, 30000, buf)
  seen.hover = hover and hover.result and hover.result.contents.value or vim.NIL

  -- go to the definition of a field, as gd would (the handler jumps)
  vim.api.nvim_win_set_cursor(0, { spec.field.line + 1, spec.field.character })
  vim.lsp.buf.definition()
  vim.wait(30000, function() return vim.api.nvim_buf_get_name(0) ~= spec.file end, 50)
  seen.definition_file = vim.api.nvim_buf_get_name(0)
  seen.definition_cursor = vim.api.nvim_win_get_cursor(0)
  seen.definition_line = vim.api.nvim_get_current_line()

  -- back, and rename a def everywhere (the edits land in buffers; nothing is written)
  vim.cmd("buffer " .. buf)
  vim.api.nvim_win_set_cursor(0, { spec.def.line + 1, spec.def.character })
  vim.lsp.buf.rename(spec.new_name)
  vim.wait(30000, function()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find(spec.new_name, 1, true) ~= nil
  end, 50)
  seen.renamed = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  seen.modified_on_disk = table.concat(vim.fn.readfile(spec.file), "\n"):find(spec.new_name, 1, true) ~= nil
end)
if not ok then seen.error = tostring(err) end
finish()
