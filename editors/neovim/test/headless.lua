-- Drives the fslens Neovim plugin headless, the way a user would, and writes what it saw as
-- JSON. Run by tests/editors_neovim.rs:
--
--   nvim --headless -u NONE -c "luafile editors/neovim/test/headless.lua"
--
-- Inputs (environment): FSLENS_PLUGIN (editors/neovim), FSLENS_BIN, FSLENS_FSAC,
-- FSLENS_WORKSPACE (a copy of fixtures/shipping), FSLENS_OUT (the JSON file to write),
-- FSLENS_STEPS (comma-separated: check, make_visible, find), FSLENS_LOG (fslens's log file).

local out = { steps = {}, errors = {} }
local timeout = tonumber(os.getenv("FSLENS_WAIT_MS") or "60000")

local function write_out()
  local file = assert(io.open(os.getenv("FSLENS_OUT"), "w"))
  file:write(vim.fn.json_encode(out))
  file:close()
end

local function wait(what, predicate)
  local ok = vim.wait(timeout, predicate, 20)
  if not ok then
    error("timed out waiting for " .. what)
  end
end

local function quickfix()
  local items = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(items, {
      file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":p"),
      lnum = item.lnum,
      col = item.col,
      text = item.text,
      type = item.type,
    })
  end
  return items
end

-- Puts the cursor on the first whole `word` of the first line containing `needle`.
local function cursor_on(needle, word)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  for index, line in ipairs(lines) do
    local at = line:find(needle, 1, true)
    if at then
      local column = line:find(word, 1, true)
      vim.api.nvim_win_set_cursor(0, { index, column - 1 })
      return index
    end
  end
  error("no line with " .. needle)
end

local function run_command(name, command)
  local fslens = require("fslens")
  local before = fslens.completed[name]
  vim.cmd(command)
  wait(command, function()
    return fslens.completed[name] > before
  end)
  return fslens.last[name]
end

local function main()
  local workspace = assert(os.getenv("FSLENS_WORKSPACE"), "FSLENS_WORKSPACE")
  vim.opt.runtimepath:append(assert(os.getenv("FSLENS_PLUGIN"), "FSLENS_PLUGIN"))
  vim.o.hidden = true
  local fslens = require("fslens")
  fslens.setup({
    cmd = assert(os.getenv("FSLENS_BIN"), "FSLENS_BIN"),
    fsac = assert(os.getenv("FSLENS_FSAC"), "FSLENS_FSAC"),
    args = os.getenv("FSLENS_LOG") and { "--log-file", os.getenv("FSLENS_LOG"), "--log-level", "info" } or {},
  })
  out.nvim = tostring(vim.version().major) .. "." .. vim.version().minor .. "." .. vim.version().patch

  local program = workspace .. "/src/Shipping.App/Program.fs"
  vim.cmd("edit " .. vim.fn.fnameescape(program))
  out.filetype = vim.bo.filetype
  wait("the fslens client to attach", function()
    return fslens.client(0) ~= nil and vim.lsp.buf_is_attached(0, fslens.client(0).id)
  end)
  out.root_dir = fslens.client(0).config.root_dir
  out.statusline_first = fslens.statusline()
  wait("readiness 'ready' in the statusline", function()
    return fslens.statusline() == "fslens: ready"
  end)
  out.statusline = fslens.statusline()

  for step in (os.getenv("FSLENS_STEPS") or "check,make_visible"):gmatch("[^,]+") do
    local seen = {}
    out.steps[step] = seen
    if step == "check" then
      vim.cmd("edit " .. vim.fn.fnameescape(program))
      -- An unsaved type error: a string where the weight (float) goes.
      local line = cursor_on('create "Books" 12.5 "Lyon"', "create")
      local text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1]
      vim.api.nvim_buf_set_lines(0, line - 1, line, false, { (text:gsub("12%.5", '"heavy"')) })
      seen.edited_line = line
      local result = run_command("check", "FslensCheck")
      seen.verdict = result.verdict
      seen.error = result.error and result.error.message
      seen.message = fslens.last_message
      seen.quickfix = quickfix()
      seen.saved = vim.fn.readfile(program)[line]
    elseif step == "make_visible" then
      local visibility = workspace .. "/src/Shipping.Domain/Visibility.fs"
      vim.cmd("edit " .. vim.fn.fnameescape(visibility))
      local line = cursor_on("type private Hidden", "Hidden")
      seen.before = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1]
      local result = run_command("makeVisible", "FslensMakeVisible")
      seen.status = result.status
      seen.error = result.error and result.error.message
      seen.after = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1]
      seen.modified = vim.bo.modified
      seen.on_disk = vim.fn.readfile(visibility)[line]
      -- With a project to expose the internals to: the project file gets InternalsVisibleTo.
      local member = cursor_on("member private this.Check", "Check")
      local result2 = run_command("makeVisible", "FslensMakeVisible Shipping.Tests")
      seen.expose_status = result2.status
      seen.expose_error = result2.error and result2.error.message
      seen.member_after = vim.api.nvim_buf_get_lines(0, member - 1, member, false)[1]
      local project = workspace .. "/src/Shipping.Domain/Shipping.Domain.fsproj"
      local project_buffer = vim.fn.bufnr(project)
      seen.project_buffer_lines = project_buffer ~= -1
          and vim.api.nvim_buf_get_lines(project_buffer, 0, -1, false)
        or {}
    elseif step == "find" then
      vim.cmd("edit " .. vim.fn.fnameescape(program))
      cursor_on("bumped.Weight <- bumped.Weight", "Weight")
      local result = run_command("find", "FslensFind")
      seen.error = result.error and result.error.message
      seen.outcome = result.outcome
      seen.quickfix = quickfix()
      local by_query = run_command("find", "FslensFind Shipment.Weight")
      seen.query_error = by_query.error and by_query.error.message
      seen.query_quickfix = quickfix()
    else
      error("unknown step " .. step)
    end
  end
  out.statusline_last = fslens.statusline()
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  table.insert(out.errors, tostring(err))
end
write_out()
vim.cmd("qa!")
