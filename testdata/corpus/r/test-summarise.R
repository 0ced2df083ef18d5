# testthat tests for summarise.R: run with testthat::test_file("test-summarise.R").
library(testthat)
source("summarise.R")

sample_df <- data.frame(
  site = rep(c("north", "south"), each = 5),
  yield = c(1, 2, 3, 4, NA, 10, 11, 12, 13, 14)
)

test_that("clean_values drops missing values and says so", {
  expect_warning(out <- clean_values(c(1, NA, 3)), "dropping 1 missing")
  expect_equal(out, c(1, 3))
})

describe("summarise_by", {
  it("gives one row per group", {
    s <- summarise_by(sample_df, "yield", "site", reps = 50L)
    expect_equal(nrow(s), 2L)
  })

  it("puts each mean inside its interval", {
    s <- summarise_by(sample_df, "yield", "site", reps = 50L)
    expect_true(all(s$lower <= s$mean & s$mean <= s$upper))
  })
})
