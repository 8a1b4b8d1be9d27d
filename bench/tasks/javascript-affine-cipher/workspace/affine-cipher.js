export const encode = (phrase, key) => {
  throw new Error('Remove this statement and implement this function');
};

export const decode = (phrase, key) => {
  throw new Error('Remove this statement and implement this function');
};
