; Markdown. The block grammar nests a section per heading by level, so a
; chunk under "## Install" inside "# Guide" has scope [Guide, Install].

(section (atx_heading heading_content: (_) @name)) @definition.section
(section (setext_heading heading_content: (_) @name)) @definition.section
