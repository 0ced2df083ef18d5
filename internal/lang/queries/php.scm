; PHP. Classes, interfaces, traits, enums, namespaces, functions and
; methods (constructors are the method __construct). A `namespace X;`
; statement without braces is a one-line definition: the grammar does not
; make it enclose the declarations after it.

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (namespace_name) @name) @definition.namespace
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
