=begin
Write your code for the 'Affine Cipher' exercise in this file. Make the tests in
`affine_cipher_test.rb` pass.

To get started with TDD, see the `README.md` file in your
`ruby/affine-cipher` directory.
=end
