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

; Variables and constants at the top level of a file or module (`const
; MAX_ITER = 100`, `tol = 1e-6`, `x::Int = 3`); a short-form function
; (`f(x) = …`) is the function above. Locals are not definitions.
(source_file (const_statement (assignment . (identifier) @name)) @definition.variable)
(module_definition (block (const_statement (assignment . (identifier) @name)) @definition.variable))
(source_file
  (assignment . [(identifier) @name (typed_expression . (identifier) @name)] (operator) @_eq)
  @definition.variable
  (#eq? @_eq "="))
(module_definition
  (block
    (assignment . [(identifier) @name (typed_expression . (identifier) @name)] (operator) @_eq)
    @definition.variable)
  (#eq? @_eq "="))

; Test sets, named by their description: `@testset "kmeans" begin … end`
; (a `for` test set too).
(macrocall_expression
  (macro_identifier (identifier) @_macro)
  (macro_argument_list . (string_literal) @name.string)
  (#eq? @_macro "testset")) @definition.test
