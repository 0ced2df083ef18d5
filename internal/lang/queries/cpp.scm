; C++. As C, plus classes, namespaces and methods. A function defined or
; declared in a class body (templates, friends included) is a method:
; package outline makes a function whose innermost enclosing definition is
; a type a method. One defined outside its class (`void Cache::put(…) {…}`)
; is a function named by its qualified name. The name is whatever the
; function declarator declares, behind pointers and references: an
; identifier, a qualified name, a destructor, an operator.

(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
  ]) @definition.function

; Member function declarations in a class body, and prototypes at namespace
; level (in a header, the API it defines).
(field_declaration
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
  ]) @definition.function
(field_declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: (_) @name)
      (pointer_declarator declarator: (function_declarator declarator: (_) @name))
      (reference_declarator (function_declarator declarator: (_) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
    ]) @definition.function)
(field_declaration_list
  (template_declaration
    (declaration
      declarator: [
        (function_declarator declarator: (_) @name)
        (pointer_declarator declarator: (function_declarator declarator: (_) @name))
        (reference_declarator (function_declarator declarator: (_) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
      ]) @definition.function))
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: (_) @name)
      (pointer_declarator declarator: (function_declarator declarator: (_) @name))
      (reference_declarator (function_declarator declarator: (_) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
    ]) @definition.function)
(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: (_) @name)
      (pointer_declarator declarator: (function_declarator declarator: (_) @name))
      (reference_declarator (function_declarator declarator: (_) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
    ]) @definition.function)

(class_specifier name: (_) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (_) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (_) @name body: (enumerator_list)) @definition.enum
(namespace_definition name: (_) @name) @definition.namespace

(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name value: (_)) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Variables and constants at namespace scope, the file's top level
; included (`constexpr double kEarthRadius = 6371.0;`, `static
; std::mutex mu;`, a static member's definition `int Cache::hits = 0;`,
; named by its qualified name); a declaration of several names is named
; by its first. A prototype is the function above (the first pattern
; wins). Class members and locals are not definitions.
(translation_unit
  (declaration
    declarator: [
      (identifier) @name
      (qualified_identifier) @name
      (array_declarator declarator: [(identifier) (qualified_identifier)] @name)
      (pointer_declarator declarator: [(identifier) (qualified_identifier)] @name)
      (reference_declarator [(identifier) (qualified_identifier)] @name)
      (init_declarator declarator: [
        (identifier) @name
        (qualified_identifier) @name
        (array_declarator declarator: [(identifier) (qualified_identifier)] @name)
        (pointer_declarator declarator: [(identifier) (qualified_identifier)] @name)
        (pointer_declarator declarator: (pointer_declarator declarator: [(identifier) (qualified_identifier)] @name))
        (reference_declarator [(identifier) (qualified_identifier)] @name)
        (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      ])
    ]) @definition.variable)
(declaration_list
  (declaration
    declarator: [
      (identifier) @name
      (qualified_identifier) @name
      (array_declarator declarator: [(identifier) (qualified_identifier)] @name)
      (pointer_declarator declarator: [(identifier) (qualified_identifier)] @name)
      (reference_declarator [(identifier) (qualified_identifier)] @name)
      (init_declarator declarator: [
        (identifier) @name
        (qualified_identifier) @name
        (array_declarator declarator: [(identifier) (qualified_identifier)] @name)
        (pointer_declarator declarator: [(identifier) (qualified_identifier)] @name)
        (pointer_declarator declarator: (pointer_declarator declarator: [(identifier) (qualified_identifier)] @name))
        (reference_declarator [(identifier) (qualified_identifier)] @name)
        (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      ])
    ]) @definition.variable)
