; Swift. One node kind holds classes, structs, enums, actors and
; extensions (class_declaration): its keyword says which. An extension is
; an impl, named by the type it extends. Protocols are interfaces, their
; requirements functions (methods: package outline makes a function whose
; innermost enclosing definition is a type a method); init and deinit are
; constructors; a computed property (`var x: T { … }`) is a property;
; typealias a type. The grammar gives a function's return type the field
; name too, so names are captured by node kind.

(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (user_type) @name) @definition.impl
(class_declaration name: (type_identifier) @name) @definition.class
(protocol_declaration name: (type_identifier) @name) @definition.interface

(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.constructor
(deinit_declaration "deinit" @name) @definition.constructor
(subscript_declaration "subscript" @name) @definition.function

(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property)) @definition.property

(typealias_declaration name: (type_identifier) @name) @definition.type

; Top-level constants and variables (`let maxTokens = 10`, `private let
; formatter: DateFormatter = {…}()`); a computed one is the property above
; (the first pattern wins). Stored properties of types and locals are not
; definitions.
(source_file
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
