// Package metrics holds the figures every part of tickwire measures the
// same way: histograms, percentiles and rates. It depends on nothing but
// the standard library (no Prometheus client: server/admin turns a
// Cumulative into a Prometheus histogram), keeps no global state, and
// every zero value is ready to use.
//
// # One definition of a percentile
//
// A percentile is the nearest rank: the q-quantile of n samples is the
// smallest sample with at least ceil(q·n) samples at or below it (p50 of
// 1..10 is 5, p99 of 1..100 is 99, p99 of 1..1000 is 990). Quantile
// computes it exactly over a sorted slice, Samples over what it kept,
// and Histogram reads it from its buckets. The one exception is
// Cumulative.Quantile, over a few wide caller-chosen buckets: it
// interpolates within the bucket, as Prometheus's histogram_quantile
// does, so that a report and a dashboard read the same figure.
//
// # The types
//
//   - Histogram: fixed log-linear buckets (32 per power of two, from
//     2^-24 to 2^24), at most 3.125% wide; allocation-free Observe,
//     exact Count, Sum, Mean and Max, quantiles never below the exact one
//     and at most Width above it, Merge, and Buckets for a published
//     {"le","count"} list. Not safe for concurrent use.
//   - Bounded: caller-chosen upper bounds, atomic: safe for concurrent
//     Observe and Snapshot; its Cumulative snapshot has Prometheus's shape,
//     Sub (the observations between two snapshots) and Quantile.
//   - Samples: every sample, or the last Keep, for exact quantiles in
//     reports and sliding windows.
//   - PerSecond and Span: a rate over a duration that reads 0, not
//     infinity or almost nothing, when the span is empty or never began.
//
// The guarantees and the tests that prove them: a Histogram's quantile
// lies between the exact nearest-rank quantile and Width above it, for
// random samples over the whole range (TestHistogramQuantileBrute);
// merging histograms equals observing every sample in one
// (TestHistogramMerge, FuzzHistogramMerge); Quantile is the nearest rank
// of a brute-force count (TestQuantileNearestRank); Cumulative.Quantile
// matches what server/admin's buckets gave before (TestCumulativeQuantile).
package metrics
