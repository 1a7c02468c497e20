"""Reading an answer out of evidence, on the edge and in the cloud alike: question shapes, the model-free readers
(names, dates, the order of dated events, a speaker's line, the short phrase of an open answer), the answer
requests and formats, degeneracy checks and the composition of what a person is shown (compose)."""
