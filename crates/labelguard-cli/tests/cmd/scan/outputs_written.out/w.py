# Class weights suggested by labelguard scan of DATA (enet): w_c = 1 / ln(1.02 + n_c / N)
# Pass them as: torch.nn.CrossEntropyLoss(weight=torch.tensor(class_weights), ignore_index=...)
class_weights = [4.00564, 9.17924, 4.46546, 0, 0, 0, 0, 10.0851, 0, 0, 4.14676, 11.2016, 0, 0, 0, 0, 0, 0, 0]
