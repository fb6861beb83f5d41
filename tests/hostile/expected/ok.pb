main;f 5
