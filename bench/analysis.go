package main

// analysis is the diagnosis of the goals of issue #17 that are missed:
// what was profiled, found, fixed or measured as the limit. Empty until a
// full run has been analysed.
const analysis = ``
