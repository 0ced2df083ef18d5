; JSON. A key whose value is an object or an array: where a chunk deep in
; package.json's "dependencies" is. Scalar-valued keys are not places.
; The key is captured whole, quotes included, as @name.json: outline
; decodes it (the grammar splits a string's content around its escapes).

(pair key: (string) @name.json value: [(object) (array)]) @definition.key
