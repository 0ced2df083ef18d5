// An independent Parquet reader for castchunk's --format parquet: hyparquet,
// a pure-JavaScript implementation that shares no code with the Go module
// castchunk writes with (its zstd and snappy decoders come from
// hyparquet-compressors). internal/record's TestParquetMatchesHyparquet runs
// it; install with `npm ci` in this folder.
//
// Usage: node read.mjs FILE.parquet
// stdout: JSON Lines. The first line describes the file:
//           {"schema":[...], "num_rows":N, "row_groups":[{"num_rows":N,
//            "columns":[{"path":[...], "type":..., "codec":..., "encodings":[...]}]}],
//            "created_by":"..."}
//         where schema is the file's flat list of schema elements (name,
//         type, repetition_type, num_children, converted_type, logical_type).
//         Every next line is one row as a JSON object, in file order: STRING
//         columns as strings (strict UTF-8, a leading BOM kept), INT64 as
//         JSON numbers (refused above 2^53), a LIST as an array, a STRUCT as
//         an object.
import { readFileSync } from "node:fs";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";

if (process.argv.length !== 3) {
  console.error("usage: node read.mjs FILE.parquet");
  process.exit(2);
}
const bytes = readFileSync(process.argv[2]);
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

// Strings are decoded with our own parser: strictly (invalid UTF-8 is an
// error, not U+FFFD) and keeping a leading BOM, which hyparquet's default
// TextDecoder drops though it is part of a first chunk's content.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const parsers = { stringFromBytes: (b) => b && utf8.decode(b) };

// JSON has no bigint: write it as a number when that is exact.
function plain(_key, v) {
  if (typeof v === "bigint") {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new Error(`integer ${v} does not fit a JSON number exactly`);
    }
    return Number(v);
  }
  return v;
}

const md = parquetMetadata(file);
const head = {
  schema: md.schema.map((e) => ({
    name: e.name,
    type: e.type,
    repetition_type: e.repetition_type,
    num_children: e.num_children,
    converted_type: e.converted_type,
    logical_type: e.logical_type,
  })),
  num_rows: md.num_rows,
  row_groups: md.row_groups.map((rg) => ({
    num_rows: rg.num_rows,
    columns: rg.columns.map((c) => ({
      path: c.meta_data.path_in_schema,
      type: c.meta_data.type,
      codec: c.meta_data.codec,
      encodings: c.meta_data.encodings,
    })),
  })),
  created_by: md.created_by,
};
const out = [JSON.stringify(head, plain)];
const rows = await parquetReadObjects({ file, compressors, metadata: md, parsers });
for (const row of rows) {
  out.push(JSON.stringify(row, plain));
}
process.stdout.write(out.join("\n") + "\n");
