package transport

// deque is a FIFO queue backed by a slice that is compacted as it drains.
type deque[T any] struct {
	buf  []T
	head int
}

func (q *deque[T]) len() int     { return len(q.buf) - q.head }
func (q *deque[T]) push(v T)     { q.buf = append(q.buf, v) }
func (q *deque[T]) front() T     { return q.buf[q.head] }
func (q *deque[T]) ptr(i int) *T { return &q.buf[q.head+i] }
func (q *deque[T]) items() []T   { return q.buf[q.head:] }

// pop removes the front element.
func (q *deque[T]) pop() T {
	var zero T
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	} else if q.head >= 64 && q.head*2 >= len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	return v
}
