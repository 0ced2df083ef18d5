module Data.QueueSpec (spec) where

import Data.Queue
import Test.Hspec

sample :: Queue Int
sample = fromList [1, 2, 3]

spec :: Spec
spec = do
  describe "Queue" $ do
    it "pops in the order things were pushed" $
      fmap fst (pop sample) `shouldBe` Just 1

    it "round-trips through a list" $
      toList sample `shouldBe` [1, 2, 3]

  describe "empty" $
    it "has nothing to pop" $
      (pop (empty :: Queue Int) >>= Just . fst) `shouldBe` Nothing
