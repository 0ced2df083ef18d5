; Rust. A fn in an impl or trait body is a method, elsewhere a function. An
; impl is named by its type, or "Trait for Type".

(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))

(function_item name: (identifier) @name) @definition.function

(impl_item trait: (_) @name type: (_) @name) @definition.impl
(impl_item type: (_) @name) @definition.impl

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(type_item name: (type_identifier) @name) @definition.type
(macro_definition name: (identifier) @name) @definition.macro
