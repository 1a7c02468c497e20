"""The domain every part shares: records and vocabulary, errors, questions and their reading, text, prompts
and the answer format."""
