"""The domain every part shares: records and vocabulary, errors, the model interfaces, questions' names and
terms, text, copied-text checks and prompts. It imports nothing else of dgrag."""
