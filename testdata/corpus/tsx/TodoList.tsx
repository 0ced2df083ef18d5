import React, {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
} from "react";
import classNames from "classnames";

import { Button } from "../ui/Button";
import { Checkbox } from "../ui/Checkbox";
import styles from "./TodoList.module.css";

export type Filter = "all" | "active" | "completed";

export interface Todo {
  id: string;
  title: string;
  completed: boolean;
  createdAt: number;
  tags?: string[];
}

type Action =
  | { type: "add"; title: string }
  | { type: "toggle"; id: string }
  | { type: "rename"; id: string; title: string }
  | { type: "remove"; id: string }
  | { type: "clearCompleted" }
  | { type: "load"; todos: Todo[] };

const STORAGE_KEY = "todos.v2";

function newId(): string {
  return Math.random().toString(36).slice(2, 10);
}

export function reducer(state: Todo[], action: Action): Todo[] {
  switch (action.type) {
    case "add": {
      const title = action.title.trim();
      if (!title) return state;
      return [...state, { id: newId(), title, completed: false, createdAt: Date.now() }];
    }
    case "toggle":
      return state.map((t) => (t.id === action.id ? { ...t, completed: !t.completed } : t));
    case "rename":
      return state.map((t) => (t.id === action.id ? { ...t, title: action.title } : t));
    case "remove":
      return state.filter((t) => t.id !== action.id);
    case "clearCompleted":
      return state.filter((t) => !t.completed);
    case "load":
      return action.todos;
    default:
      return state;
  }
}

interface TodoContextValue {
  todos: Todo[];
  dispatch: React.Dispatch<Action>;
}

const TodoContext = createContext<TodoContextValue | null>(null);

export function useTodos(): TodoContextValue {
  const ctx = useContext(TodoContext);
  if (!ctx) {
    throw new Error("useTodos must be used inside <TodoProvider>");
  }
  return ctx;
}

/** Persist a value to localStorage, debounced. */
function usePersistentState<T>(key: string, value: T, delayMs = 300): void {
  useEffect(() => {
    const handle = window.setTimeout(() => {
      try {
        window.localStorage.setItem(key, JSON.stringify(value));
      } catch {
        // Quota exceeded or storage disabled: nothing useful to do.
      }
    }, delayMs);
    return () => window.clearTimeout(handle);
  }, [key, value, delayMs]);
}

export const TodoProvider: React.FC<{ children: React.ReactNode }> = ({ children }) => {
  const [todos, dispatch] = useReducer(reducer, [], () => {
    const raw = typeof window === "undefined" ? null : window.localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Todo[]) : [];
  });
  usePersistentState(STORAGE_KEY, todos);
  const value = useMemo(() => ({ todos, dispatch }), [todos]);
  return <TodoContext.Provider value={value}>{children}</TodoContext.Provider>;
};

interface TodoItemProps {
  todo: Todo;
  onToggle: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onRemove: (id: string) => void;
}

export function TodoItem({ todo, onToggle, onRename, onRemove }: TodoItemProps) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(todo.title);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (editing) inputRef.current?.focus();
  }, [editing]);

  const commit = () => {
    setEditing(false);
    if (draft.trim() && draft !== todo.title) onRename(todo.id, draft.trim());
    else setDraft(todo.title);
  };

  return (
    <li className={classNames(styles.item, { [styles.completed]: todo.completed, [styles.editing]: editing })}>
      {editing ? (
        <input
          ref={inputRef}
          className={styles.edit}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === "Enter") commit();
            if (e.key === "Escape") {
              setDraft(todo.title);
              setEditing(false);
            }
          }}
        />
      ) : (
        <div className={styles.view}>
          <Checkbox checked={todo.completed} onChange={() => onToggle(todo.id)} aria-label={`Toggle ${todo.title}`} />
          <label onDoubleClick={() => setEditing(true)}>{todo.title}</label>
          {todo.tags?.map((tag) => (
            <span key={tag} className={styles.tag}>
              #{tag}
            </span>
          ))}
          <button className={styles.destroy} onClick={() => onRemove(todo.id)} aria-label="Delete" />
        </div>
      )}
    </li>
  );
}

const FILTERS: Record<Filter, (t: Todo) => boolean> = {
  all: () => true,
  active: (t) => !t.completed,
  completed: (t) => t.completed,
};

export interface TodoListProps {
  initialFilter?: Filter;
  /** Shown when there is nothing to do. */
  emptyMessage?: string;
}

export default function TodoList({ initialFilter = "all", emptyMessage = "Nothing to do!" }: TodoListProps) {
  const { todos, dispatch } = useTodos();
  const [filter, setFilter] = useState<Filter>(initialFilter);
  const [title, setTitle] = useState("");

  const visible = useMemo(() => todos.filter(FILTERS[filter]), [todos, filter]);
  const remaining = todos.filter((t) => !t.completed).length;

  const onToggle = useCallback((id: string) => dispatch({ type: "toggle", id }), [dispatch]);
  const onRename = useCallback((id: string, t: string) => dispatch({ type: "rename", id, title: t }), [dispatch]);
  const onRemove = useCallback((id: string) => dispatch({ type: "remove", id }), [dispatch]);

  const onSubmit = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    dispatch({ type: "add", title });
    setTitle("");
  };

  return (
    <section className={styles.app}>
      <header>
        <h1>todos</h1>
        <form onSubmit={onSubmit}>
          <input
            className={styles.newTodo}
            placeholder="What needs to be done?"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            autoFocus
          />
        </form>
      </header>
      {visible.length === 0 ? (
        <p className={styles.empty}>{emptyMessage}</p>
      ) : (
        <ul className={styles.list}>
          {visible.map((todo) => (
            <TodoItem key={todo.id} todo={todo} onToggle={onToggle} onRename={onRename} onRemove={onRemove} />
          ))}
        </ul>
      )}
      <footer className={styles.footer}>
        <span>
          <strong>{remaining}</strong> {remaining === 1 ? "item" : "items"} left
        </span>
        <nav>
          {(Object.keys(FILTERS) as Filter[]).map((f) => (
            <Button key={f} variant={f === filter ? "primary" : "ghost"} onClick={() => setFilter(f)}>
              {f[0].toUpperCase() + f.slice(1)}
            </Button>
          ))}
        </nav>
        {todos.length > remaining && (
          <Button variant="link" onClick={() => dispatch({ type: "clearCompleted" })}>
            Clear completed
          </Button>
        )}
      </footer>
    </section>
  );
}
