; Markdown. The block grammar nests a section per heading by level, so a
; chunk under "## Install" inside "# Guide" has scope [Guide, Install]. A
; heading is named by its plain words, without link or emphasis markup.

(section (atx_heading heading_content: (_) @name.markdown)) @definition.section
(section (setext_heading heading_content: (_) @name.markdown)) @definition.section
