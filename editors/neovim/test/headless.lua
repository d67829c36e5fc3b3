-- Drives the fslens Neovim plugin headless, the way a user would, and writes what it saw as
-- JSON. Run by tests/it/editors_neovim.rs:
--
--   nvim --headless -u NONE -c "luafile editors/neovim/test/headless.lua"
--
-- Inputs (environment): FSLENS_PLUGIN (editors/neovim), FSLENS_BIN, FSLENS_FSAC,
-- FSLENS_WORKSPACE (a copy of fixtures/shipping), FSLENS_OUT (the JSON file to write),
-- FSLENS_STEPS (comma-separated: unit, check, make_visible, find, field_impact, rename, callers,
-- callees, implementations, type_hierarchy, tests_for_symbol, run_tests, affected_tests, dead_code,
-- signature_drift, union_case_impact), FSLENS_LOG (fslens's log file),
-- FSLENS_START (`enable`: Neovim 0.11's vim.lsp.config + vim.lsp.enable("fslens"), no setup()).

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

local function error_text(err)
  return type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
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

-- Makes `path` the current buffer (`:edit` of the current, modified buffer would fail).
local function open(path)
  if vim.api.nvim_buf_get_name(0) ~= path then
    vim.cmd("edit " .. vim.fn.fnameescape(path))
  end
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
  local log_args = os.getenv("FSLENS_LOG") and { "--log-file", os.getenv("FSLENS_LOG"), "--log-level", "info" } or {}
  if os.getenv("FSLENS_START") == "enable" then
    -- Neovim 0.11's convention, as a user writes it: no setup(), only the command line.
    out.lsp_enable = true
    -- A user's Neovim detects filetypes (`-u NONE` switches that off); 0.11 knows *.fs as F#.
    vim.cmd("filetype on")
    vim.lsp.config("fslens", {
      cmd = vim.list_extend({ os.getenv("FSLENS_BIN"), "--fsac", os.getenv("FSLENS_FSAC") }, log_args),
    })
    vim.lsp.enable("fslens")
  else
    local markers = os.getenv("FSLENS_ROOT_MARKERS")
    fslens.setup({
      root_markers = markers and vim.split(markers, ",") or nil,
      cmd = assert(os.getenv("FSLENS_BIN"), "FSLENS_BIN"),
      fsac = assert(os.getenv("FSLENS_FSAC"), "FSLENS_FSAC"),
      args = log_args,
    })
  end
  out.nvim = tostring(vim.version().major) .. "." .. vim.version().minor .. "." .. vim.version().patch

  local program = workspace .. "/" .. (os.getenv("FSLENS_FIRST_FILE") or "src/Shipping.App/Program.fs")
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
    if step == "unit" then
      -- The plugin's pure helpers, checked in place (an assertion failure fails the test).
      local function eq(actual, expected, what)
        if not vim.deep_equal(actual, expected) then
          error(what .. ": expected " .. vim.inspect(expected) .. ", got " .. vim.inspect(actual))
        end
      end
      eq(fslens.server_command({ cmd = "fslens", fsac_args = {} }), { "fslens" }, "default command")
      eq(
        fslens.server_command({ cmd = { "fslens", "-v" }, fsac = "dotnet fsac.dll", fsac_args = { "--x", "a b" }, args = { "--no-share" } }),
        { "fslens", "-v", "--fsac", "dotnet fsac.dll --x 'a b'", "--no-share" },
        "command with FSAC and arguments"
      )
      eq(fslens.server_command({ cmd = "fslens", fsac_args = { "--y" } }), { "fslens", "--fsac", "fsautocomplete --y" }, "args only")
      eq(
        fslens.server_command({ cmd = "fslens", fsac_memory_limit = "4GiB" }),
        { "fslens", "--fsac-memory-limit", "4GiB" },
        "memory limit"
      )
      eq(fslens.status_text({ state = "absent" }), "syntax only", "absent")
      eq(fslens.status_text({ state = "loading", unresponsive = true }), "loading (unresponsive)", "unresponsive")
      eq(fslens.status_text({ state = "crashed" }), "crashed", "crashed")
      eq(fslens.status_text(nil), "fslens", "unknown")
      -- UTF-16 columns: "é" is 2 bytes / 1 unit, "𝒳" 4 bytes / 2 units.
      local text = "let é𝒳x = 1"
      eq(fslens.byte_col(text, 4), 5, "ascii prefix")
      eq(fslens.byte_col(text, 5), 7, "after é")
      eq(fslens.byte_col(text, 7), 11, "after the astral character")
      eq(fslens.utf16_col(text, 10), 7, "byte 10 is after 𝒳")
      eq(fslens.find_root(workspace .. "/src/Shipping.App/Program.fs"), workspace, "the solution wins over the project")
      eq(
        fslens.find_root(workspace .. "/src/Shipping.App/Program.fs", { "*.fsproj" }),
        workspace .. "/src/Shipping.App",
        "the project without solution markers"
      )
      local items = fslens.check_items(workspace, {
        { file = "src/Shipping.App/Program.fs", range = { start = { line = 0, character = 7 } }, severity = "warning", code = 25, message = "a\n   b  " },
        { file = "snippet", range = { start = { line = 2, character = 1 } }, severity = "error", code = 1, message = "s" },
      })
      eq(items[1].filename, workspace .. "/src/Shipping.App/Program.fs", "check item file")
      eq({ items[1].lnum, items[1].col, items[1].type, items[1].text }, { 1, 8, "W", "FS0025 a b" }, "check item")
      eq(items[2].filename, nil, "snippet items have no file")
      local sites = fslens.site_items(workspace, {
        { file = "src/Shipping.App/Program.fs", range = { start = { line = 22, character = 11 } }, kind = "field-set-mutation", project = "Shipping.App", siteType = "float", lineText = "    bumped.Weight <- 1.0" },
      })
      eq({ sites[1].lnum, sites[1].col, sites[1].text }, { 23, 12, "field-set-mutation : float [Shipping.App]: bumped.Weight <- 1.0" }, "site item")
      -- The runnable tests of a testsForSymbol answer: an Expecto test without a VSTest
      -- adapter is not among runTestsArguments.tests, and its project is not sent.
      local run, skipped = fslens.run_arguments({
        runTestsArguments = { tests = { "A.Tests.one" }, projects = { "tests/A/A.fsproj", "tests/E/E.fsproj" } },
      }, {
        { fullyQualifiedName = "A.Tests.one", project = "tests/A/A.fsproj" },
        { fullyQualifiedName = "A.Tests.one", project = "tests/A/A.fsproj" },
        { fullyQualifiedName = "e.one", project = "tests/E/E.fsproj" },
      })
      eq(run, { tests = { "A.Tests.one" }, projects = { "tests/A/A.fsproj" } }, "run arguments")
      eq(skipped, 1, "tests that cannot be run by name")
      local failures = fslens.failure_items(workspace, {
        tests = {
          { fullName = "A.ok", displayName = "A.ok", outcome = "passed" },
          { fullName = "A.bad", displayName = "A.bad", outcome = "failed", message = "Expected: 3\n  Actual: 2", location = { path = "tests/A/T.fs", line = 9 } },
          { fullName = "A.gone", displayName = "A.gone", outcome = "notFound" },
        },
        staleAssemblies = { { project = "tests/A/A.fsproj", reason = "older", remedy = "run `dotnet build`" } },
      })
      eq(#failures, 3, "a failure, a test not found and a stale build")
      eq({ failures[1].filename, failures[1].lnum, failures[1].text, failures[1].type },
        { workspace .. "/tests/A/T.fs", 9, "A.bad: Expected: 3 Actual: 2", "E" }, "failure item")
      eq({ failures[2].type, failures[2].filename, failures[3].filename }, { "W", nil, workspace .. "/tests/A/A.fsproj" }, "not found and stale")
      -- A test a testsForSymbol answer showed: its entry without a frame is at its declaration.
      fslens.test_places["A.gone"] = { filename = workspace .. "/tests/A/T.fs", lnum = 4 }
      local placed = fslens.failure_items(workspace, { tests = { { fullName = "A.gone", displayName = "A.gone", outcome = "notFound" } } })
      eq({ placed[1].filename, placed[1].lnum, placed[1].type }, { workspace .. "/tests/A/T.fs", 4, "W" }, "a test without a result at its declaration")
      fslens.test_places["A.gone"] = nil
      -- An affectedTests answer: each test with its reasons; an incomplete one says what was
      -- not followed and lists the fallback tests; a run puts a failure at its frame.
      local chain = {
        { name = "normalize", path = "L/P.fs", line = 2 },
        { name = "total", path = "L/L.fs", line = 2 },
        { name = "total works", path = "T/T.fs", line = 6 },
      }
      eq(fslens.reason_text({ change = "body", chain = chain }),
        "body changed: normalize (L/P.fs:3) → total (L/L.fs:3) → total works (T/T.fs:7)", "reason text")
      eq(fslens.reason_text({ change = "removed", noLongerCompiles = true, chain = { chain[1], chain[3] } }),
        "removed, no longer compiles: normalize (L/P.fs:3) → total works (T/T.fs:7)", "removed reason text")
      local selected = { name = "total works", fullyQualifiedName = "T.total works", framework = "xunit", project = "T/T.fsproj",
        path = "T/T.fs", line = 6, reasons = { { change = "body", chain = chain } } }
      local partial = {
        source = { kind = "since", revision = "HEAD" }, complete = false, totalTests = 1, tests = { selected },
        missing = { "the depth limit cut total" },
        fallbackTests = { { name = "other", project = "T/T.fsproj", path = "T/T.fs", line = 9 } },
      }
      local listed = fslens.affected_items(workspace, partial)
      eq(#listed, 3, "a test, what was not followed, a fallback test")
      eq({ listed[1].filename, listed[1].lnum, listed[1].type, listed[1].text },
        { workspace .. "/T/T.fs", 7, "I", "total works [xunit] ← body changed: normalize (L/P.fs:3) → total (L/L.fs:3) → total works (T/T.fs:7)" },
        "a selected test")
      eq({ listed[2].filename, listed[2].text, listed[2].type }, { nil, "NOT complete: the depth limit cut total", "W" }, "not followed")
      eq({ listed[3].lnum, listed[3].type, listed[3].text },
        { 10, "W", "other [fallback: not reached by the walk, not ruled out either]" }, "a fallback test")
      eq(fslens.affected_summary(partial),
        "fslens: 1 test(s) reached by the change (since HEAD; NOT complete): not followed: the depth limit cut total — 1 fallback test(s) in the list; :FslensAffectedTests! runs them",
        "an incomplete answer's summary")
      eq(fslens.affected_summary({ source = { kind = "buffers" }, complete = true, totalTests = 0, tests = {},
        notes = { "no change: no unsaved buffer differs from the disk" } }),
        "fslens: 0 test(s) reached by the change (unsaved buffers; complete) — no change: no unsaved buffer differs from the disk",
        "no change is said")
      local failed = vim.tbl_extend("force", selected, { results = { { fullName = "T.total works", displayName = "T.total works",
        outcome = "failed", message = "Expected: 2\n Actual: 3", location = { path = "T/T.fs", line = 7 } } } })
      local results = fslens.affected_items(workspace, {
        tests = { failed, vim.tbl_extend("force", selected, { name = "e", framework = "expecto", line = 1 }) },
        run = { status = "ok", complete = true, totals = { passed = 0, failed = 1, skipped = 0, other = 0 }, tests = {} },
      })
      eq({ results[1].filename, results[1].lnum, results[1].type }, { workspace .. "/T/T.fs", 7, "E" }, "a failure at its frame (1-based)")
      eq(results[1].text, "T.total works: Expected: 2 Actual: 3 ← body changed: normalize (L/P.fs:3) → total (L/L.fs:3) → total works (T/T.fs:7)", "a failure's text")
      eq({ results[2].lnum, results[2].type, results[2].text:match("^e: not run") ~= nil }, { 2, "W", true }, "a test not run")
      -- The answers of deadCode, unionCaseImpact and signatureDrift as quickfix items (the files
      -- do not exist: columns come from the character, or 1).
      local dead = fslens.dead_code_items(workspace, {
        unused = { { name = "helper", kind = "value", accessibility = "private", path = "Lib/X.fs", line = 4, character = 12, evidence = "no use", caveat = vim.NIL } },
      })
      eq({ dead[1].filename, dead[1].lnum, dead[1].col, dead[1].text, dead[1].type },
        { workspace .. "/Lib/X.fs", 5, 13, "helper (value, private): no use", "W" }, "dead code item")
      local impacts = fslens.union_impact_items(workspace, {
        case = "Triangle",
        impacts = {
          { kind = "incompleteMatch", code = "FS0025", severity = "warning", message = "Incomplete\n  match", file = "G/S.fs", line = 9, character = 8, ["function"] = "area" },
          { kind = "other", code = "FS0001", severity = "error", message = "m", file = "G/S.fs", line = 2, character = 0, ["function"] = vim.NIL },
        },
        wildcardMatches = { { file = "A/R.fs", line = 3, catchAllLine = 5, ["function"] = "isRound", casesMatched = { "Circle" } } },
      })
      eq(#impacts, 3, "two impacts and a wildcard match")
      eq({ impacts[1].lnum, impacts[1].col, impacts[1].text, impacts[1].type }, { 10, 9, "FS0025 incompleteMatch in area: Incomplete match", "W" }, "impact item")
      eq({ impacts[2].text, impacts[2].type }, { "FS0001 other: m", "E" }, "an impact outside any function")
      eq({ impacts[3].filename, impacts[3].lnum, impacts[3].type }, { workspace .. "/A/R.fs", 4, "W" }, "wildcard item")
      eq(impacts[3].text, "wildcard match in isRound: the new case Triangle goes to the catch-all arm on line 6 (it matched Circle)", "wildcard text")
      local fix = { description = "add `val x: int`", status = "ready" }
      local drift = fslens.drift_items(workspace, {
        pairs = { {
          signatureFile = "L/A.fsi", implementationFile = "L/A.fs",
          implementationOnly = { { name = "x", kind = "value", file = "L/A.fs", line = 2, certain = true, fix = fix } },
          signatureOnly = { { name = "gone", kind = "value", file = "L/A.fsi", line = 7, certain = false, fix = { description = "delete", status = "unverified" } } },
        } },
      })
      eq({ drift[1].filename, drift[1].lnum, drift[1].text, drift[1].type },
        { workspace .. "/L/A.fs", 3, "x (value): not in L/A.fsi — add `val x: int`", "W" }, "implementation-only item")
      eq({ drift[2].filename, drift[2].lnum, drift[2].text, drift[2].type },
        { workspace .. "/L/A.fsi", 8, "gone (value): not in L/A.fs (the build fails) — delete [unverified] (uncertain)", "E" }, "signature-only item")
      seen.ok = true
    elseif step == "empty_arguments" then
      -- `arguments = { {} }` as a user writes it, without vim.empty_dict(): Neovim encodes the
      -- empty table as `[]`, so fslens receives `[[]]`.
      local client = fslens.client(0)
      local params = { command = "fslens.status", arguments = { {} } }
      local response
      if vim.fn.has("nvim-0.11") == 1 then
        response = client:request_sync("workspace/executeCommand", params, timeout, 0)
      else
        response = client.request_sync("workspace/executeCommand", params, timeout, 0)
      end
      seen.encoded = vim.fn.json_encode(params.arguments)
      seen.error = response and response.err and response.err.message or vim.NIL
      seen.state = response and response.result and response.result.state or vim.NIL
    elseif step == "check" then
      open(program)
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
      open(visibility)
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
      open(program)
      cursor_on("bumped.Weight <- bumped.Weight", "Weight")
      local result = run_command("find", "FslensFind")
      seen.error = result.error and result.error.message
      seen.outcome = result.outcome
      seen.quickfix = quickfix()
      -- By name, in pages of 5 sites: the plugin follows nextCursor.
      fslens.config.max_results = 5
      local by_query = run_command("find", "FslensFind Shipment.Weight")
      fslens.config.max_results = 200
      seen.query_error = by_query.error and by_query.error.message
      seen.query_quickfix = quickfix()
      seen.query_pages = by_query.pages
    elseif step == "rename" then
      open(program)
      local line = cursor_on('create "Books" 12.5 "Lyon"', "create")
      local result = run_command("rename", "FslensRename makeShipment")
      seen.error = result.error and result.error.message
      seen.total_edits = result.totalEdits
      seen.complete = result.complete
      seen.applied = result.applied and result.applied.applied
      seen.after = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1]
      seen.modified = vim.bo.modified
      seen.on_disk = vim.fn.readfile(program)[line]
      local operations = workspace .. "/src/Shipping.Domain/Operations.fs"
      local operations_buffer = vim.fn.bufnr(operations)
      seen.declaration_after = operations_buffer ~= -1
          and vim.api.nvim_buf_get_lines(operations_buffer, 2, 3, false)[1]
        or vim.NIL
      seen.declaration_on_disk = vim.fn.readfile(operations)[3]
      seen.quickfix = quickfix()
    elseif step == "callers" then
      local operations = workspace .. "/src/Shipping.Domain/Operations.fs"
      open(operations)
      cursor_on("let create", "create")
      local result = run_command("callers", "FslensCallers")
      seen.error = result.error
      seen.quickfix = quickfix()
    elseif step == "callees" then
      open(program)
      cursor_on("let run", "run")
      local result = run_command("callees", "FslensCallees")
      seen.error = result.error
      seen.quickfix = quickfix()
    elseif step == "implementations" then
      -- FSLENS_FIRST_FILE is fixtures/implementations' Shapes/Shapes.fs.
      cursor_on("abstract Area", "Area")
      local result = run_command("implementations", "FslensImplementations")
      seen.error = result.error
      seen.quickfix = quickfix()
    elseif step == "type_hierarchy" then
      cursor_on("type IShape", "IShape")
      local result = run_command("typeHierarchy", "FslensTypeHierarchy")
      seen.error = result.error
      seen.quickfix = quickfix()
    elseif step == "tests_for_symbol" then
      -- FSLENS_FIRST_FILE is fixtures/editors' src/Gauges/Dial.fs.
      cursor_on("let needle", "needle")
      local result = run_command("testsForSymbol", "FslensTestsForSymbol")
      seen.error = result.error and error_text(result.error)
      seen.complete = result.complete
      seen.message = fslens.last_message
      seen.title = vim.fn.getqflist({ title = 0 }).title
      seen.quickfix = quickfix()
    elseif step == "run_tests" then
      -- Right after tests_for_symbol: the quickfix list's tests run.
      local result = run_command("runTests", "FslensRunTests")
      seen.error = result.error and error_text(result.error)
      seen.totals = result.totals
      seen.ran = {}
      for _, test in ipairs(result.tests or {}) do
        table.insert(seen.ran, test.fullName)
      end
      seen.message = fslens.last_message
      seen.quickfix = quickfix()
      -- From the failures' list, :FslensRunTests runs the same tests again.
      local again = run_command("runTests", "FslensRunTests")
      seen.again_totals = again.totals
      -- By name: the tests of clampReading, looked up first.
      local by_name = run_command("runTests", "FslensRunTests clampReading")
      seen.by_name_error = by_name.error and error_text(by_name.error)
      seen.by_name_totals = by_name.totals
      seen.by_name_quickfix = quickfix()
      seen.by_name_message = fslens.last_message
    elseif step == "affected_tests" then
      -- FSLENS_WORKSPACE is a copy of fixtures/tested-reach made a git repository, whose
      -- Ledger.total lost its List.distinct on disk since HEAD (the xUnit tests built after).
      local ran = run_command("affectedTests", "FslensAffectedTests! HEAD")
      seen.run_error = ran.error and error_text(ran.error)
      seen.run_title = vim.fn.getqflist({ title = 0 }).title
      seen.run_message = fslens.last_message
      seen.run_quickfix = quickfix()
      -- An unsaved edit of Parsing.normalize's body (FSLENS_FIRST_FILE), not written: the
      -- default change is the unsaved buffers.
      open(workspace .. "/src/Calc/Parsing.fs")
      local line = cursor_on("let normalize", "normalize")
      local text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1]
      vim.api.nvim_buf_set_lines(0, line - 1, line, false, { (text:gsub("ToLowerInvariant", "ToUpperInvariant")) })
      local listed = run_command("affectedTests", "FslensAffectedTests")
      seen.error = listed.error and error_text(listed.error)
      seen.complete = listed.complete
      seen.source = listed.source and listed.source.kind
      seen.title = vim.fn.getqflist({ title = 0 }).title
      seen.message = fslens.last_message
      seen.quickfix = quickfix()
      seen.saved = vim.fn.readfile(workspace .. "/src/Calc/Parsing.fs")[line]
    elseif step == "dead_code" then
      -- FSLENS_WORKSPACE is a copy of fixtures/dead (rooted at its .git).
      local result = run_command("deadCode", "FslensDeadCode")
      seen.error = result.error and error_text(result.error)
      seen.complete = result.complete
      seen.not_ruled_out = #(result.notRuledOut or {})
      seen.message = fslens.last_message
      seen.title = vim.fn.getqflist({ title = 0 }).title
      seen.quickfix = quickfix()
    elseif step == "signature_drift" then
      -- fixtures/dead's Lib/Shapes.fs: two public values its Shapes.fsi does not declare.
      open(workspace .. "/Lib/Shapes.fs")
      local result = run_command("signatureDrift", "FslensSignatureDrift")
      seen.error = result.error and error_text(result.error)
      seen.complete = result.complete
      seen.message = fslens.last_message
      seen.quickfix = quickfix()
    elseif step == "union_case_impact" then
      -- FSLENS_FIRST_FILE is fixtures/union's Geometry/Shape.fs.
      cursor_on("type Shape", "Shape")
      local before = vim.fn.readfile(vim.api.nvim_buf_get_name(0))
      local result = run_command("unionCaseImpact", "FslensUnionCaseImpact add Triangle float * float")
      seen.error = result.error and error_text(result.error)
      seen.complete = result.complete
      seen.edit = result.edit
      seen.message = fslens.last_message
      seen.title = vim.fn.getqflist({ title = 0 }).title
      seen.quickfix = quickfix()
      seen.unchanged = vim.deep_equal(before, vim.api.nvim_buf_get_lines(0, 0, -1, false))
        and vim.deep_equal(before, vim.fn.readfile(vim.api.nvim_buf_get_name(0)))
        and not vim.bo.modified
      -- A change the command cannot send is refused before fslens is asked.
      local refused = run_command("unionCaseImpact", "FslensUnionCaseImpact grow Triangle")
      seen.refused = refused.error and error_text(refused.error)
    elseif step == "field_impact" then
      open(program)
      local result = run_command("fieldImpact", "FslensFieldImpact Shipment.Weight")
      seen.error = result.error and result.error.message
      seen.outcome = result.outcome
      seen.quickfix = quickfix()
    else
      error("unknown step " .. step)
    end
  end
  out.statusline_last = fslens.statusline()
  out.messages = vim.fn.execute("messages")
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  table.insert(out.errors, tostring(err))
end
write_out()
vim.cmd("qa!")
