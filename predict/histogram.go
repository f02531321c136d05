package predict

import "github.com/tickwire/tickwire/metrics"

// Histogram is a distribution of Telemetry: metrics.Histogram, fixed
// log-linear buckets at most 3.125% wide whose quantiles are exact to a
// bucket's width and whose mean and maximum are exact. The zero value is
// empty and ready.
type Histogram = metrics.Histogram
