;;; e2e.el --- crd-lsp through Emacs's eglot, for emacs_test.go  -*- lexical-binding: t -*-

;; Run: emacs --batch -Q -l e2e.el
;; Environment: CRD_LSP_PLAN, a JSON file written by the Go test:
;;   bin          the crd-lsp binary
;;   dir          the workspace (the project root)
;;   file         the custom resources to open
;;   out          where to write the JSON result
;;   timeout      seconds allowed for each wait
;;   wait         part of a diagnostic message that shows the workspace's CRD is loaded
;;   hover        [line, col] (1-based line, 0-based col) to ask hover at
;;   complete     line (1-based) after which a new line is typed for completion
;;   fix          {line, col, title}: the quick fix to apply there
;;   setting      {value, wait, type}: the crdLsp.validation.unknownKind value to
;;                switch to, and the diagnostic that must then have that flymake type
;;   composition  {file, line}: a Composition, rendered from that line (1-based)
;;   render       docs/editors.md's crd-lsp-render block, as a file to load
;;   project      docs/editors.md's Emacs 28 root-marker block, as a file to load
;; The script waits for each thing to happen (a flymake diagnostic, a reply)
;; with a deadline, records what Emacs shows, and writes it to `out'; the Go
;; test asserts on it.

(require 'cl-lib)
(require 'json)

;; Debian's elpa-eglot and the packages it needs, without package.el.
(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(require 'eglot)
(require 'flymake)

;; Emacs 28 has no YAML mode; eglot only needs a major mode named yaml-mode
;; (it derives the languageId "yaml" from it).
(define-derived-mode yaml-mode prog-mode "YAML"
  (setq-local comment-start "# ")
  (setq-local indent-tabs-mode nil))
(add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode))

(defvar e2e-plan (json-read-file (getenv "CRD_LSP_PLAN")))
(defun e2e-get (&rest keys)
  (let ((v e2e-plan))
    (dolist (k keys v) (setq v (cdr (assq k v))))))

(defvar e2e-result nil)
(defun e2e-put (key value) (push (cons key value) e2e-result))
(defun e2e-write ()
  (with-temp-file (e2e-get 'out)
    (insert (json-encode e2e-result))))

(defun e2e-until (what check)
  "Wait for CHECK to return non-nil, servicing the server meanwhile."
  (let ((deadline (+ (float-time) (e2e-get 'timeout)))
        v)
    (while (and (not (setq v (funcall check)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or v (error "timed out waiting for %s" what))))

(defun e2e-goto (line col)
  (goto-char (point-min))
  (forward-line (1- line))
  (move-to-column col))

(defun e2e-send-changes ()
  "Send the buffer's changes to the server now.
Eglot sends them from an idle timer; batch Emacs is never idle, so this
does what that timer would."
  (eglot--signal-textDocument/didChange))

(defun e2e-diagnostics ()
  "Flymake's diagnostics of the current buffer, as shown."
  (mapcar (lambda (d)
            (save-excursion
              (goto-char (flymake-diagnostic-beg d))
              `((line . ,(line-number-at-pos))
                (col . ,(current-column))
                (type . ,(symbol-name (flymake-diagnostic-type d)))
                (text . ,(flymake-diagnostic-text d)))))
          (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))))

(defun e2e-shows (sub &optional type)
  "Non-nil when flymake shows a diagnostic containing SUB (of TYPE)."
  (cl-some (lambda (d) (and (string-search sub (flymake-diagnostic-text d))
                            (or (not type) (eq type (flymake-diagnostic-type d)))))
           (flymake-diagnostics)))

(defun e2e-run ()
  (let* ((default-directory (file-name-as-directory (e2e-get 'dir)))
         (buf (find-file-noselect (expand-file-name (e2e-get 'file))))
         server)
    (setq-default eglot-workspace-configuration
                  '(:crdLsp (:validation (:unknownKind "warning"))))
    (with-current-buffer buf
      ;; As M-x eglot would: this buffer's mode, its project (found by
      ;; docs/editors.md's root-marker setup: no .git here, a crossplane.yaml),
      ;; the server.
      (require 'project)
      (load (e2e-get 'project) nil t)
      (let ((project (project-current nil)))
        (unless project (error "no project for %s" buffer-file-name))
        (e2e-put 'root (expand-file-name (project-root project)))
        (eglot '(yaml-mode) project 'eglot-lsp-server
               (list (e2e-get 'bin)) "yaml"))
      (e2e-until "eglot to manage the buffer"
                 (lambda () (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))
      (setq server (eglot-current-server))
      (e2e-put 'server (plist-get (eglot--server-info server) :name))
      ;; Flymake starts on the next command in an interactive Emacs.
      (flymake-start nil t)
      (e2e-until (format "a diagnostic containing %S" (e2e-get 'wait))
                 (lambda () (e2e-shows (e2e-get 'wait))))
      (e2e-put 'diagnostics (e2e-diagnostics))

      ;; Hover, as eldoc asks for it at point.
      (e2e-goto (aref (e2e-get 'hover) 0) (aref (e2e-get 'hover) 1))
      (let ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
        (e2e-put 'hover (plist-get (plist-get hover :contents) :value)))

      ;; Completion on a new line: eglot's completion-at-point table.
      (e2e-goto (e2e-get 'complete) 0)
      (end-of-line)
      (insert "\n  ")
      (let* ((capf (eglot-completion-at-point))
             (table (nth 2 capf)))
        (e2e-put 'completion (all-completions (buffer-substring (nth 0 capf) (nth 1 capf)) table)))
      (undo-boundary)
      (delete-region (line-beginning-position) (point))
      (delete-char -1)
      (e2e-send-changes)
      (e2e-put 'restored (equal (buffer-string)
                                (with-temp-buffer (insert-file-contents (e2e-get 'file)) (buffer-string))))

      ;; A setting changed, as an Emacs user does: the variable, then
      ;; eglot-signal-didChangeConfiguration.
      (setq-default eglot-workspace-configuration
                    `(:crdLsp (:validation (:unknownKind ,(e2e-get 'setting 'value)))))
      (eglot-signal-didChangeConfiguration server)
      (let ((type (intern (e2e-get 'setting 'type))))
        (e2e-until (format "%S as %s" (e2e-get 'setting 'wait) type)
                   (lambda () (e2e-shows (e2e-get 'setting 'wait) type))))
      (e2e-put 'diagnostics_setting (e2e-diagnostics))

      ;; The quick fix at the misspelt field: M-x eglot-code-actions, with
      ;; the fix picked from the list.
      (e2e-goto (e2e-get 'fix 'line) (e2e-get 'fix 'col))
      (let* ((actions (eglot-code-actions (point) (point) "quickfix"))
             (titles (mapcar (lambda (a) (plist-get a :title)) actions))
             (chosen (cl-find (e2e-get 'fix 'title) actions
                              :key (lambda (a) (plist-get a :title)) :test #'equal)))
        (e2e-put 'actions titles)
        (unless chosen (error "no quick fix %S among %S" (e2e-get 'fix 'title) titles))
        (eglot--read-execute-code-action (list chosen) server "quickfix"))
      (e2e-send-changes)
      (e2e-put 'fixed_line (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
      (e2e-until "the fixed diagnostic to go"
                 (lambda () (not (e2e-shows "unknown field"))))
      (e2e-put 'diagnostics_fixed (e2e-diagnostics)))

    ;; Rendering: eglot shows no code lenses, but runs the server's
    ;; command like any other (docs/editors.md binds it to a key).
    (with-current-buffer (find-file-noselect (expand-file-name (e2e-get 'composition 'file)))
      (e2e-until "eglot to manage the Composition" (lambda () (bound-and-true-p eglot--managed-mode)))
      ;; docs/editors.md's crd-lsp-render, run twice (the second time
      ;; over its own read-only buffer) from the Composition's line.
      (load (e2e-get 'render) nil t)
      (goto-char (point-min))
      (forward-line (1- (e2e-get 'composition 'line)))
      (crd-lsp-render)
      (with-current-buffer (get-buffer "*crd-lsp render*")
        (e2e-put 'rendered_first (buffer-substring-no-properties (point-min) (point-max)))))
    (with-current-buffer (find-file-noselect (expand-file-name (e2e-get 'composition 'file)))
      (crd-lsp-render))
    (with-current-buffer (get-buffer "*crd-lsp render*")
      (e2e-put 'rendered (buffer-substring-no-properties (point-min) (point-max)))
      (e2e-put 'rendered_file (or buffer-file-name :json-false))
      (e2e-put 'rendered_modified (if (buffer-modified-p) t :json-false))
      (e2e-put 'rendered_typing
               (condition-case err
                   (progn (insert "typed") "accepted")
                 (buffer-read-only (format "%S" (car err))))))
    (eglot-shutdown server)))

(condition-case err
    (progn (e2e-run) (e2e-write) (kill-emacs 0))
  (error
   (e2e-put 'error (error-message-string err))
   (e2e-write)
   (kill-emacs 1)))

;;; e2e.el ends here
