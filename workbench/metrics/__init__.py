"""Pure metric functions on arrays.  No pandas I/O, no Qt, no global state."""
