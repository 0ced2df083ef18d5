; Haskell. A function is named by its binding; each equation of a
; function defined by cases is one definition (`rank Leaf = 0` and `rank
; (Node r _ _ _) = r`), and so is a binding without arguments (`empty =
; Queue 0 [] 0 []`), a function in point-free style or a value. Type
; classes are traits, instances impls named by the class and the type
; ("Show (Queue a)"), data, newtype and type declarations types. A
; binding in a class or instance is a method (package outline makes a
; function whose innermost enclosing definition is a type a method).

(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function

(class name: (name) @name) @definition.trait
(instance name: (name) @name patterns: (type_patterns) @name) @definition.impl
(instance name: (name) @name) @definition.impl

(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type

; hspec and tasty blocks, named by their description: `describe "Queue" $
; do …`, `it "pops" $ …`, `testCase "empty" $ …`.
(infix
  left_operand: (apply
    function: (variable) @_fn
    argument: (literal (string) @name.string))
  operator: (operator) @_op
  (#eq? @_op "$")
  (#any-of? @_fn "describe" "context" "it" "specify" "prop" "testCase" "testProperty" "testGroup")) @definition.test
