; Rust. An impl is named by its type, or "Trait for Type". A fn in an impl
; or a trait is a method (package outline makes a function whose innermost
; enclosing definition is a type a method).

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function

(impl_item trait: (_) @name type: (_) @name) @definition.impl
(impl_item type: (_) @name) @definition.impl

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(type_item name: (type_identifier) @name) @definition.type
(macro_definition name: (identifier) @name) @definition.macro

; Constants and statics of a module (the file's top level or a mod's body);
; those in a function or an impl are not.
(source_file [(const_item name: (identifier) @name) (static_item name: (identifier) @name)] @definition.variable)
(mod_item
  body: (declaration_list [(const_item name: (identifier) @name) (static_item name: (identifier) @name)] @definition.variable))
