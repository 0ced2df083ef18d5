; TOML. A table (`[package]`) or an array-of-tables element (`[[bin]]`),
; named by its key; it runs to the next table.

(table . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.table
(table_array_element . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.table
