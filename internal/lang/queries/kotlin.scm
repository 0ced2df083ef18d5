; Kotlin. Classes (`interface` ones are interfaces, `enum class` enums),
; objects and companion objects, functions (methods in a class or object:
; package outline makes a function whose innermost enclosing definition is
; a type a method), secondary constructors (named "constructor"), type
; aliases. An unnamed companion object is named "companion object".

(function_declaration name: (_) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.constructor

(class_declaration "interface" name: (_) @name) @definition.interface
(class_declaration (modifiers (class_modifier "enum")) name: (_) @name) @definition.enum
(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.object
(companion_object name: (_) @name) @definition.object
(companion_object "companion" @name "object" @name) @definition.object
(type_alias type: (_) @name) @definition.type

; Top-level properties (`const val MAX = 3`, `val defaultPolicy =
; RetryPolicy()`, `by lazy { … }`). Class properties and locals are not
; definitions.
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
