/**
 * DataTable: a sortable, paginated table with row selection.
 *
 * Column definitions are generic over the row type, so `accessor` and
 * `render` are type-checked against the data.
 */
import * as React from "react";
import { memo, useEffect, useMemo, useState, type ReactNode } from "react";

export type SortDirection = "asc" | "desc";

export interface Column<Row> {
  key: string;
  header: ReactNode;
  accessor: (row: Row) => string | number | Date | null | undefined;
  render?: (row: Row) => ReactNode;
  sortable?: boolean;
  width?: number | string;
  align?: "left" | "right" | "center";
}

export interface DataTableProps<Row> {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  pageSize?: number;
  selectable?: boolean;
  onSelectionChange?: (keys: Set<string>) => void;
  loading?: boolean;
  caption?: string;
}

interface SortState {
  key: string;
  direction: SortDirection;
}

function compareValues(a: unknown, b: unknown): number {
  if (a == null && b == null) return 0;
  if (a == null) return 1;
  if (b == null) return -1;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" });
}

export function useSorted<Row>(rows: readonly Row[], columns: readonly Column<Row>[], sort: SortState | null) {
  return useMemo(() => {
    if (!sort) return rows;
    const column = columns.find((c) => c.key === sort.key);
    if (!column) return rows;
    const sign = sort.direction === "asc" ? 1 : -1;
    return [...rows].sort((x, y) => sign * compareValues(column.accessor(x), column.accessor(y)));
  }, [rows, columns, sort]);
}

export function usePagination(total: number, pageSize: number) {
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const [page, setPage] = useState(0);
  useEffect(() => {
    if (page >= pageCount) setPage(pageCount - 1);
  }, [page, pageCount]);
  return {
    page,
    pageCount,
    first: page * pageSize,
    last: Math.min(total, (page + 1) * pageSize),
    next: () => setPage((p) => Math.min(p + 1, pageCount - 1)),
    prev: () => setPage((p) => Math.max(p - 1, 0)),
    goTo: setPage,
  };
}

const SortIcon = ({ direction }: { direction?: SortDirection }) => (
  <span aria-hidden="true" className="sort-icon">
    {direction === "asc" ? "▲" : direction === "desc" ? "▼" : "↕"}
  </span>
);

interface HeaderCellProps {
  label: ReactNode;
  sortable: boolean;
  direction?: SortDirection;
  onSort: () => void;
  width?: number | string;
  align?: Column<unknown>["align"];
}

const HeaderCell = memo(function HeaderCell({ label, sortable, direction, onSort, width, align }: HeaderCellProps) {
  const ariaSort = direction === "asc" ? "ascending" : direction === "desc" ? "descending" : "none";
  return (
    <th scope="col" style={{ width, textAlign: align }} aria-sort={sortable ? ariaSort : undefined}>
      {sortable ? (
        <button type="button" className="th-button" onClick={onSort}>
          {label}
          <SortIcon direction={direction} />
        </button>
      ) : (
        label
      )}
    </th>
  );
});

export function DataTable<Row>({
  rows,
  columns,
  rowKey,
  pageSize = 25,
  selectable = false,
  onSelectionChange,
  loading = false,
  caption,
}: DataTableProps<Row>) {
  const [sort, setSort] = useState<SortState | null>(null);
  const [selected, setSelected] = useState<Set<string>>(() => new Set());

  const sorted = useSorted(rows, columns, sort);
  const pager = usePagination(sorted.length, pageSize);
  const pageRows = sorted.slice(pager.first, pager.last);

  useEffect(() => {
    onSelectionChange?.(selected);
  }, [selected, onSelectionChange]);

  const toggleSort = (key: string) =>
    setSort((s) =>
      s?.key !== key ? { key, direction: "asc" } : s.direction === "asc" ? { key, direction: "desc" } : null,
    );

  const toggleRow = (key: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const allOnPage = pageRows.length > 0 && pageRows.every((r) => selected.has(rowKey(r)));
  const toggleAll = () =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const r of pageRows) {
        if (allOnPage) next.delete(rowKey(r));
        else next.add(rowKey(r));
      }
      return next;
    });

  return (
    <div className="data-table" aria-busy={loading}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {selectable && (
              <th scope="col" className="select-cell">
                <input type="checkbox" checked={allOnPage} onChange={toggleAll} aria-label="Select page" />
              </th>
            )}
            {columns.map((c) => (
              <HeaderCell
                key={c.key}
                label={c.header}
                sortable={!!c.sortable}
                direction={sort?.key === c.key ? sort.direction : undefined}
                onSort={() => toggleSort(c.key)}
                width={c.width}
                align={c.align}
              />
            ))}
          </tr>
        </thead>
        <tbody>
          {loading ? (
            <tr>
              <td colSpan={columns.length + (selectable ? 1 : 0)} className="loading">
                Loading…
              </td>
            </tr>
          ) : (
            pageRows.map((row) => {
              const key = rowKey(row);
              return (
                <tr key={key} className={selected.has(key) ? "selected" : undefined}>
                  {selectable && (
                    <td className="select-cell">
                      <input type="checkbox" checked={selected.has(key)} onChange={() => toggleRow(key)} />
                    </td>
                  )}
                  {columns.map((c) => (
                    <td key={c.key} style={{ textAlign: c.align }}>
                      {c.render ? c.render(row) : String(c.accessor(row) ?? "")}
                    </td>
                  ))}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
      <nav className="pager" aria-label="Pagination">
        <button type="button" onClick={pager.prev} disabled={pager.page === 0}>
          ‹ Prev
        </button>
        <span>
          Page {pager.page + 1} of {pager.pageCount} ({sorted.length} rows)
        </span>
        <button type="button" onClick={pager.next} disabled={pager.page >= pager.pageCount - 1}>
          Next ›
        </button>
      </nav>
    </div>
  );
}

export default DataTable;
