; HCL (Terraform, Packer, Nomad). A block is a table, named by its type
; and labels: `resource "aws_instance" "web"`, `variable "region"`,
; `locals`; a nested block (`lifecycle`, `dynamic "ingress"`) is a table
; inside it.

(block . (identifier) @name [(string_lit) (identifier)] @name . (block_start)) @definition.table
(block . (identifier) @name . (block_start)) @definition.table

; A local value of a top-level `locals` block (`name = "x"`, referred to
; as local.name) and an attribute at a file's top level (a .tfvars file's
; `region = "us-east-1"`) are variables. A block's arguments are not.
(config_file
  (body
    (block
      .
      (identifier) @_block
      .
      (block_start)
      (body (attribute (identifier) @name) @definition.variable))
    (#eq? @_block "locals")))
(config_file (body (attribute (identifier) @name) @definition.variable))
