; HCL (Terraform, Packer, Nomad). A block is a table, named by its type
; and labels: `resource "aws_instance" "web"`, `variable "region"`,
; `locals`; a nested block (`lifecycle`, `dynamic "ingress"`) is a table
; inside it.

(block . (identifier) @name [(string_lit) (identifier)] @name . (block_start)) @definition.table
(block . (identifier) @name . (block_start)) @definition.table
