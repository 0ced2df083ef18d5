{-# LANGUAGE ScopedTypeVariables #-}

-- | A purely functional FIFO queue (Okasaki's banker's queue) with a
-- priority variant built on a leftist heap.
module Data.Queue
  ( Queue
  , empty
  , push
  , pop
  , fromList
  , Heap
  , insert
  , popMin
  ) where

import Data.List (foldl')
import Data.Maybe (fromMaybe)

-- | Front and reversed back, each with its length, so 'pop' is amortised O(1).
data Queue a = Queue !Int [a] !Int [a]

instance Show a => Show (Queue a) where
  show q = "fromList " ++ show (toList q)

instance Functor Queue where
  fmap f (Queue lf f' lr r) = Queue lf (map f f') lr (map f r)

empty :: Queue a
empty = Queue 0 [] 0 []

-- | Keep the back no longer than the front.
check :: Queue a -> Queue a
check q@(Queue lf f lr r)
  | lr <= lf = q
  | otherwise = Queue (lf + lr) (f ++ reverse r) 0 []

push :: a -> Queue a -> Queue a
push x (Queue lf f lr r) = check (Queue lf f (lr + 1) (x : r))

pop :: Queue a -> Maybe (a, Queue a)
pop (Queue _ [] _ _) = Nothing
pop (Queue lf (x : f) lr r) = Just (x, check (Queue (lf - 1) f lr r))

fromList :: [a] -> Queue a
fromList = foldl' (flip push) empty

toList :: Queue a -> [a]
toList q = case pop q of
  Nothing -> []
  Just (x, q') -> x : toList q'

-- | Things that can be measured for a priority.
class Ord (Priority a) => Prioritised a where
  type Priority a
  priority :: a -> Priority a

-- | A leftist heap: the rank of a left child is never below the right's.
data Heap a
  = Leaf
  | Node !Int a (Heap a) (Heap a)
  deriving (Show)

rank :: Heap a -> Int
rank Leaf = 0
rank (Node r _ _ _) = r

merge :: Ord a => Heap a -> Heap a -> Heap a
merge Leaf h = h
merge h Leaf = h
merge h1@(Node _ x l1 r1) h2@(Node _ y _ _)
  | x <= y = make x l1 (merge r1 h2)
  | otherwise = merge h2 h1
  where
    make v a b
      | rank a >= rank b = Node (rank b + 1) v a b
      | otherwise = Node (rank a + 1) v b a

insert :: Ord a => a -> Heap a -> Heap a
insert x = merge (Node 1 x Leaf Leaf)

popMin :: Ord a => Heap a -> Maybe (a, Heap a)
popMin Leaf = Nothing
popMin (Node _ x l r) = Just (x, merge l r)

-- | Drain a heap in order, with a default for the empty case.
drainOr :: forall a. Ord a => a -> Heap a -> [a]
drainOr def h = fromMaybe [def] (go h)
  where
    go :: Heap a -> Maybe [a]
    go Leaf = Just []
    go heap = do
      (x, rest) <- popMin heap
      xs <- go rest
      pure (x : xs)
