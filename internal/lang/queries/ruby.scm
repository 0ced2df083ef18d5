; Ruby. Classes, modules and methods. Every `def` defines a method, except
; that one at the top level of a file is called a function, as in the other
; languages. A singleton method is named with its object: `def self.zero`
; and a `def zero` inside `class << self` are both "self.zero". A class
; made by `Name = Struct.new(…) do … end` (or Class.new, Data.define) is a
; class of that name. Test blocks (`describe "x" do`) are tests; other
; blocks (`task :x do`) are calls, not definitions.

(program (method name: (_) @name) @definition.function)
(singleton_class
  value: (_) @qualifier
  body: (body_statement (method name: (_) @name) @definition.method))
(method name: (_) @name) @definition.method
(singleton_method object: (_) @name "." @name name: (_) @name) @definition.method

(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_receiver
    method: (identifier) @_method
    block: [(do_block) (block)])
  (#any-of? @_receiver "Struct" "Class" "Data")
  (#any-of? @_method "new" "define")) @definition.class

; RSpec (and minitest/spec) blocks, named by their description: a string
; (`it "parses" do`) or a constant (`RSpec.describe Parser do`).
(call
  method: (identifier) @_method
  arguments: (argument_list . [(string) @name.string (constant) @name (scope_resolution) @name])
  block: [(do_block) (block)]
  (#any-of? @_method "describe" "context" "it" "specify" "example" "feature" "scenario" "shared_examples" "shared_context")) @definition.test
