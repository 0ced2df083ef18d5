; Zig. Functions (methods in a container: package outline makes a function
; whose innermost enclosing definition is a type a method); a container
; bound to a name (`const Point = struct { … }`) is a struct, enum or
; union of that name, an error set an enum; test blocks are tests, named
; by their description or identifier. An anonymous container (the
; `struct { … }` a generic function returns) is not a definition.

(function_declaration name: (identifier) @name) @definition.function

(variable_declaration (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name (union_declaration)) @definition.struct
(variable_declaration (identifier) @name (opaque_declaration)) @definition.struct
(variable_declaration (identifier) @name (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name (error_set_declaration)) @definition.enum

(test_declaration (string) @name.string) @definition.test
(test_declaration (identifier) @name) @definition.test

; Other top-level constants and variables (`const max_len: usize = 64;`,
; `var counter: u32 = 0;`, an `@import` too): a container bound to a name
; is the struct or enum above (the first pattern wins). Locals are not
; definitions.
(source_file (variable_declaration (identifier) @name) @definition.variable)
