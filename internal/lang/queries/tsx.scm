; extends: typescript
; TSX: the TypeScript query (the TSX grammar has the same nodes, plus JSX).
