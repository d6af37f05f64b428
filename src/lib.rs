//! nvq
