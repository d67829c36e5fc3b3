;;; eglot-batch.el --- drives the Emacs (eglot) setup of editors/README.md in batch mode  -*- lexical-binding: t -*-

;; Run by tests/it/editors_emacs.rs:
;;
;;   emacs --batch -l editors/emacs/test/eglot-batch.el
;;
;; It evaluates the Emacs Lisp blocks of editors/README.md's "Emacs (eglot)" section as a
;; user would paste them, opens a copy of fixtures/shipping, makes an unsaved type error,
;; runs the README's `fslens-check' and `fslens-make-visible', and writes what it saw as JSON.
;;
;; Inputs (environment): FSLENS_README (editors/README.md), FSLENS_WORKSPACE (the copy),
;; FSLENS_OUT (the JSON file to write), FSLENS_WAIT_SECONDS (default 60). `fslens' must be on
;; PATH and FSLENS_FSAC must name the FSAC double. Without the `fsharp-mode' package (MELPA;
;; Debian has none) a stand-in major mode of that name is defined: eglot only needs the name.

(require 'json)
(require 'subr-x)

(defvar fslens-test-out (list (cons 'errors nil)))
(defvar fslens-test-wait (string-to-number (or (getenv "FSLENS_WAIT_SECONDS") "60")))

(defun fslens-test-note (key value)
  (setq fslens-test-out (cons (cons key value) fslens-test-out)))

(defun fslens-test-write ()
  (with-temp-file (getenv "FSLENS_OUT")
    (insert (json-encode fslens-test-out))))

(defun fslens-test-wait-for (what predicate)
  (let ((deadline (+ (float-time) fslens-test-wait)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall predicate)
      (error "timed out waiting for %s" what))))

(defun fslens-test-readme-elisp ()
  "The Emacs Lisp blocks of the README's Emacs section, in order."
  (with-temp-buffer
    (insert-file-contents (getenv "FSLENS_README"))
    (goto-char (point-min))
    (re-search-forward "^## Emacs")
    (let ((end (save-excursion (if (re-search-forward "^## " nil t) (point) (point-max))))
          (blocks nil))
      (while (re-search-forward "^```elisp\n" end t)
        (let ((start (point)))
          (re-search-forward "^```$" end)
          (push (buffer-substring-no-properties start (match-beginning 0)) blocks)))
      (nreverse blocks))))

(defun fslens-test-line (number)
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- number))
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(defun fslens-test-goto-word (needle word)
  "Point on WORD in the first line containing NEEDLE; returns that line's number."
  (goto-char (point-min))
  (search-forward needle)
  (beginning-of-line)
  (re-search-forward (concat "\\_<" (regexp-quote word) "\\_>") (line-end-position))
  (goto-char (match-beginning 0))
  (line-number-at-pos))

(defvar fslens-test-prompts nil "What eglot asked the user; the driver answers yes.")

(defun fslens-test-yes (prompt &rest _)
  (push prompt fslens-test-prompts)
  t)

(advice-add 'y-or-n-p :override #'fslens-test-yes)
(advice-add 'yes-or-no-p :override #'fslens-test-yes)

(defun fslens-test-run ()
  (let ((workspace (file-name-as-directory (getenv "FSLENS_WORKSPACE"))))
    (fslens-test-note 'emacs emacs-version)
    ;; project.el finds no VCS in the fixture copy: the workspace is the project.
    (add-hook 'project-find-functions (lambda (_directory) (cons 'transient workspace)))
    (unless (fboundp 'fsharp-mode)
      (define-derived-mode fsharp-mode prog-mode "F#" "Stand-in for MELPA's fsharp-mode.")
      (add-to-list 'auto-mode-alist '("\\.fsi?\\'" . fsharp-mode)))
    (dolist (block (fslens-test-readme-elisp))
      (with-temp-buffer
        (insert block)
        (eval-buffer)))
    (fslens-test-note 'eglot (and (featurep 'eglot) (symbol-name major-mode)))
    (let* ((program (expand-file-name "src/Shipping.App/Program.fs" workspace))
           (buffer (find-file-noselect program)))
      (with-current-buffer buffer
        (fslens-test-note 'mode (symbol-name major-mode))
        ;; eglot-ensure connects from post-command-hook, which batch mode never runs.
        (run-hooks 'post-command-hook)
        (fslens-test-wait-for "eglot to connect" (lambda () (eglot-current-server)))
        (fslens-test-note 'server (car (process-command (jsonrpc--process (eglot-current-server)))))
        ;; An unsaved type error, as in the Neovim test.
        (let ((line (fslens-test-goto-word "create \"Books\" 12.5" "12.5")))
          (delete-region (point) (+ (point) 4))
          (insert "\"heavy\"")
          (fslens-test-note 'edited_line line))
        (eglot--signal-textDocument/didChange)
        (fslens-test-note 'status
                          (plist-get (fslens--execute "fslens.status" '(:waitUntil "ready" :timeoutMs 60000))
                                     :state))
        (fslens-check)
        (fslens-test-note 'check_buffer (with-current-buffer "*fslens check*"
                                          (buffer-substring-no-properties (point-min) (point-max))))
        (fslens-test-note 'check_mode (with-current-buffer "*fslens check*" (symbol-name major-mode)))
        (fslens-test-note 'saved (with-temp-buffer
                                   (insert-file-contents program)
                                   (fslens-test-line 7)))))
    (let* ((visibility (expand-file-name "src/Shipping.Domain/Visibility.fs" workspace))
           (buffer (find-file-noselect visibility)))
      (with-current-buffer buffer
        (run-hooks 'post-command-hook)
        (fslens-test-wait-for "eglot to manage Visibility.fs" (lambda () (bound-and-true-p eglot--managed-mode)))
        (let ((line (fslens-test-goto-word "type private Hidden" "Hidden")))
          (fslens-test-note 'before (fslens-test-line line))
          (fslens-make-visible)
          (fslens-test-wait-for "the edit to reach the buffer"
                                (lambda () (not (string-match-p "private" (fslens-test-line line)))))
          (fslens-test-note 'after (fslens-test-line line))
          (fslens-test-note 'modified (if (buffer-modified-p) t :json-false))
          (fslens-test-note 'on_disk (with-temp-buffer
                                       (insert-file-contents visibility)
                                       (fslens-test-line line))))))))

(condition-case error
    (fslens-test-run)
  (error (setcdr (assq 'errors fslens-test-out) (vector (error-message-string error)))))
(fslens-test-note 'prompts (vconcat fslens-test-prompts))
(fslens-test-note 'messages (with-current-buffer "*Messages*" (buffer-string)))
(fslens-test-write)
(ignore-errors (eglot-shutdown-all))
(kill-emacs 0)

;;; eglot-batch.el ends here
