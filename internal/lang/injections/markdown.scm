; embeds: fenced code in any language castchunk has, YAML and TOML front matter, HTML blocks
; Markdown: a fenced code block whose info string names a language (```rust,
; ```py, ```{r}), a block of HTML, and YAML (---) or TOML (+++) front matter.
; A chunk that holds a whole fence, its ``` lines too, is the fence's code
; (@injection.region). @injection.delimiter (castchunk's) is the opening
; ```: at the end of a file with no final newline the grammar parses the
; closing ``` as content, and package inject leaves it out of the code.
(fenced_code_block
  . (fenced_code_block_delimiter) @injection.delimiter
  (info_string (language) @injection.language)
  (code_fence_content) @injection.content) @injection.region

((html_block) @injection.content (#set! injection.language "html"))

((minus_metadata) @injection.content (#set! injection.language "yaml"))

((plus_metadata) @injection.content (#set! injection.language "toml"))
