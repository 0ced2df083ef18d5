; Starlark (Bazel, Buck, Tilt). Functions (macros and rule
; implementations); a rule, macro, aspect or provider made by assignment
; (`my_rule = rule(…)`), named by the variable; in a BUILD file, a target
; (a top-level call with `name = "…"`), named by its name.

(function_definition name: (identifier) @name) @definition.function

(module
  (expression_statement
    (assignment
      left: (identifier) @name
      right: (call function: (identifier) @_kind)
      (#any-of? @_kind "rule" "macro" "aspect" "provider" "repository_rule" "module_extension"))) @definition.rule)

(module
  (expression_statement
    (call
      arguments: (argument_list
        (keyword_argument
          name: (identifier) @_name
          value: (string) @name.string)
        (#eq? @_name "name")))) @definition.rule)

; Other top-level variables (`DEPS = ["//a"]`, `_ATTRS = {…}`): a rule made
; by assignment is the rule above (the first pattern wins). Locals are
; not definitions.
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
