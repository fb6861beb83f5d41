2x2samples
