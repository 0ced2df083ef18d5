; Go. A method is named Type.Method from its receiver's type (pointer and
; type parameters dropped): Go methods sit at top level, so nothing else in
; their scope says which type they belong to. A type spec is a struct, an
; interface or else a type; the spec (`Name struct {…}`) is the definition,
; so each spec of a grouped `type ( … )` is one.

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @qualifier
        (pointer_type (type_identifier) @qualifier)
        (generic_type type: (type_identifier) @qualifier)
        (pointer_type (generic_type type: (type_identifier) @qualifier))
      ]))
  name: (field_identifier) @name) @definition.method

(method_declaration name: (field_identifier) @name) @definition.method

(function_declaration name: (identifier) @name) @definition.function

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct

(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

(type_spec name: (type_identifier) @name) @definition.type

(type_alias name: (type_identifier) @name) @definition.type

; Package-level variables and constants, each spec of a grouped `var ( … )`
; or `const ( … )` one; a spec of several names is named by its first.
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
(source_file
  (const_declaration (const_spec name: (identifier) @name) @definition.variable))
