"""The placer: assigns every op of a graph to one device of a session, as TensorFlow's C++
placer does, and keeps the reason for each decision so it can be explained."""
