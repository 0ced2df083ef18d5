; C. Functions (definitions and prototypes: a header's prototypes are its
; definitions), structs and unions with a body, enums with a body, typedefs
; and macros with a value (an include guard defines nothing). A function's
; name sits under its declarator, behind up to two pointer levels.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

(declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum

(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition
  declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

(preproc_def name: (identifier) @name value: (_)) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; File-scope variables and constants (`static const int table[] = {…};`,
; `extern int verbose;`, `static int (*handler)(int) = 0;`), also inside
; the #if/#ifdef of a file's top level (a header's include guard); a
; declaration of several names is named by its first. A prototype is the
; function above (the first pattern wins). Locals are not definitions.
(translation_unit
  (declaration
    declarator: [
      (identifier) @name
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (identifier) @name)
      (init_declarator declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
        (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
      ])
    ]) @definition.variable)
(translation_unit
  (preproc_ifdef
    (declaration
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (identifier) @name)
        (init_declarator declarator: [
          (identifier) @name
          (array_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
          (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
        ])
      ]) @definition.variable))
(translation_unit
  (preproc_if
    (declaration
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (identifier) @name)
        (init_declarator declarator: [
          (identifier) @name
          (array_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (identifier) @name)
          (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
          (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
        ])
      ]) @definition.variable))
