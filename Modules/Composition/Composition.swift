/// The composition root. \npublic enum Composition {}
