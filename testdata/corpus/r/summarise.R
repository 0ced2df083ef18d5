# Summary statistics for grouped measurements, with a bootstrap
# confidence interval for each group's mean.

library(stats)

#' Trim missing values and report how many were dropped.
clean_values <- function(x, warn = TRUE) {
  missing <- sum(is.na(x))
  if (missing > 0 && warn) {
    warning(sprintf("dropping %d missing values", missing))
  }
  x[!is.na(x)]
}

bootstrap_mean <- function(x, reps = 1000L, level = 0.95, seed = NULL) {
  if (!is.null(seed)) set.seed(seed)
  n <- length(x)
  if (n < 2) {
    return(c(lower = NA_real_, upper = NA_real_))
  }
  means <- vapply(seq_len(reps), function(i) {
    mean(sample(x, n, replace = TRUE))
  }, numeric(1))
  alpha <- (1 - level) / 2
  quantile(means, c(alpha, 1 - alpha), names = FALSE) |>
    setNames(c("lower", "upper"))
}

summarise_group <- function(values, reps = 1000L) {
  values <- clean_values(values)
  ci <- bootstrap_mean(values, reps = reps)
  data.frame(
    n = length(values),
    mean = mean(values),
    sd = sd(values),
    median = median(values),
    lower = ci[["lower"]],
    upper = ci[["upper"]]
  )
}

summarise_by <- function(df, value, group, reps = 1000L) {
  stopifnot(is.data.frame(df), value %in% names(df), group %in% names(df))
  parts <- split(df[[value]], df[[group]])
  rows <- lapply(names(parts), function(name) {
    row <- summarise_group(parts[[name]], reps = reps)
    cbind(group = name, row)
  })
  result <- do.call(rbind, rows)
  result[order(result$mean, decreasing = TRUE), , drop = FALSE]
}

# A tiny S3 class so results print compactly.
new_summary <- function(table, value) {
  structure(list(table = table, value = value), class = "group_summary")
}

print.group_summary <- function(x, digits = 3, ...) {
  cat("Summary of", x$value, "by group\n")
  print(format(x$table, digits = digits), row.names = FALSE)
  invisible(x)
}

#' The sites of the demo below, in the order they are reported.
SITES <- c("north", "south", "east")

if (sys.nframe() == 0L) {
  set.seed(42)
  df <- data.frame(
    site = rep(SITES, each = 20),
    yield = c(rnorm(20, 10), rnorm(20, 12, 2), c(rnorm(19, 9), NA))
  )
  print(new_summary(summarise_by(df, "yield", "site", reps = 200L), "yield"))
}
