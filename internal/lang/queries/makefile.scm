; Makefiles. A rule is named by its targets (`build/%.o`, `all`); a
; `define` is a macro; a variable assigned at the top level (`CFLAGS +=
; …`, `SRC := …`) is a variable, named by its name.

(rule (targets) @name) @definition.rule
(define_directive name: (word) @name) @definition.macro
(makefile (variable_assignment name: (word) @name) @definition.variable)
