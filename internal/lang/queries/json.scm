; JSON. A key whose value is an object or an array: where a chunk deep in
; package.json's "dependencies" is. Scalar-valued keys are not places.

(pair key: (string (string_content) @name) value: [(object) (array)]) @definition.key
