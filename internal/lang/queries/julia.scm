; Julia. Modules; functions, long form (`function f(x) … end`, with
; `where` clauses, return types and qualified names such as `Base.show`)
; and short form (`f(x) = …`); macros; structs (mutable ones too) and
; abstract types (types), named without their type parameters or
; supertype.

(module_definition name: (identifier) @name) @definition.module

(function_definition
  (signature
    [
      (call_expression . [(identifier) (field_expression)] @name)
      (typed_expression . (call_expression . [(identifier) (field_expression)] @name))
      (where_expression . (call_expression . [(identifier) (field_expression)] @name))
      (where_expression . (typed_expression . (call_expression . [(identifier) (field_expression)] @name)))
    ])) @definition.function
(assignment
  .
  [
    (call_expression . [(identifier) (field_expression)] @name)
    (where_expression . (call_expression . [(identifier) (field_expression)] @name))
  ]
  (operator) @_eq
  (#eq? @_eq "=")) @definition.function

(macro_definition
  (signature (call_expression . (identifier) @name))) @definition.macro

(struct_definition
  (type_head
    [
      (identifier) @name
      (parametrized_type_expression . (identifier) @name)
      (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)])
    ])) @definition.struct
(abstract_definition
  (type_head
    [
      (identifier) @name
      (parametrized_type_expression . (identifier) @name)
      (binary_expression . [(identifier) @name (parametrized_type_expression . (identifier) @name)])
    ])) @definition.type
